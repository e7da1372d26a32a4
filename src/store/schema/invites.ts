/** Table types of invitations, the organization's allowed email domains and the outgoing email queue (listed in schema.ts's Database). */
import type { Generated, Insertable, Selectable } from "kysely";

/** An invitation's state: open, accepted (single-use invitations only) or revoked. */
export const INVITE_STATUS = { active: 0, used: 1, revoked: 2 } as const;

/**
 * One invitation (Zulip's PreregistrationUser with its Confirmation, or a MultiuseInvite): an
 * email invitation names its address and is used once; a reusable link (`is_multiuse`) has none.
 * Both kinds share one id space, so an id names one invitation of one kind.
 */
export interface InviteTable {
  id: Generated<number>;
  realm_id: number;
  /** The user who made it (Zulip's referred_by). */
  invited_by: number;
  /** The address an email invitation was sent to; null for a reusable link. */
  email: string | null;
  is_multiuse: number;
  /** The role the new user gets (100 owner ... 600 guest). */
  invited_as: number;
  /** The channels the new user joins, as a JSON list of ids. */
  stream_ids: string;
  include_realm_default_subscriptions: number;
  notify_referrer_on_join: number;
  /** SHA-256 of the invitation's token (secrets.ts tokenDigest): the token itself is not kept... */
  token_hash: string;
  /** ...except a reusable link's, which GET /invites shows again as its link_url (as Zulip does). */
  link_token: string | null;
  /** UNIX seconds. */
  invited_at: number;
  /** UNIX seconds; null: never expires. */
  expires_at: number | null;
  /** INVITE_STATUS. */
  status: Generated<number>;
  /**
   * Set on a sign-up confirmation: the single-use invitation a reusable link's visitor is mailed to
   * confirm their address (Zulip's PreregistrationUser.multiuse_invite). It names the link, whose
   * role and channels it copies; GET /invites does not list it, and it dies with the link.
   */
  multiuse_invite_id: number | null;
  /**
   * FL 416: what the Welcome Bot adds for the person who joins through it (set only by
   * administrators); null: the organization's text, "": nothing.
   */
  welcome_message_custom_text: string | null;
}

/** A stored invitation. */
export type InviteRow = Selectable<InviteTable>;
/** An invitation to insert. */
export type NewInvite = Insertable<InviteTable>;

/**
 * One email waiting to be sent through SMTP_URL (invitations, account links and notices, missed-message emails, digests), taken by the email worker as
 * store/engine/job-tables.ts takes any job, and deleted once sent or given up on.
 */
export interface EmailJobTable {
  id: Generated<number>;
  realm_id: number;
  to_address: string;
  subject: string;
  /** The plain-text body. */
  body: string;
  /** The HTML body, sent beside the plain text (null: plain text only; migration 0035). */
  html_body: Generated<string | null>;
  failed_tries: Generated<number>;
  /** When the job may next be tried, UNIX milliseconds (moved forward while a worker holds it). */
  due_at_ms: number;
}

/** A stored email job. */
export type EmailJobRow = Selectable<EmailJobTable>;

/** A domain whose addresses may join the organization when emails_restricted_to_domains is on (Zulip's RealmDomain). */
export interface RealmDomainTable {
  id: Generated<number>;
  realm_id: number;
  /** Lower case, validated (actions/organization/realm-domains.ts). */
  domain: string;
  /** 1: addresses at any subdomain of `domain` are allowed too. */
  allow_subdomains: number;
}

/** A stored allowed domain. */
export type RealmDomainRow = Selectable<RealmDomainTable>;
