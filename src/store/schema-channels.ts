/** Table types of channel extras (listed in schema.ts's Database). */
import type { Generated } from "kysely";

/** A realm's default channels (Zulip's DefaultStream): new users are subscribed to them. */
export interface DefaultStreamTable {
  id: Generated<number>;
  realm_id: number;
  stream_id: number;
}

/** Tokens of channel email addresses (Zulip's ChannelEmailAddress), per channel, requester and sender. */
export interface StreamEmailAddressTable {
  id: Generated<number>;
  realm_id: number;
  stream_id: number;
  creator_id: number;
  /** The user posting what arrives at the address; 0 for the email gateway itself. */
  sender_id: number;
  email_token: string;
}
