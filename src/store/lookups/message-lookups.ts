/** The rows presenting a batch of messages reads besides the messages (present/messages.ts takes them loaded). */
import type { Db } from "../schema/types.ts";
import type { MessageRow, ReactionRow, StreamRow, UserRow } from "../schema/database.ts";
import { listLinkifiers, type LinkifierRow } from "../realm/linkifiers.ts";
import type { AttachedRows } from "../messages/message-attached.ts";
import { directRecipientMembers } from "../messages/messages.ts";
import { reactionsOfMessages } from "../messages/reactions.ts";
import { getStreamsByIds } from "../channels/streams.ts";
import { submessagesOfMessages, type SubmessageRow } from "../messages/submessages.ts";
import { usersByIds } from "../users/users.ts";

/** What a batch of messages refers to. */
export type MessageLookupRows = {
  /** Member ids of each direct recipient among the messages, by recipient id. */
  directMembers: Map<number, number[]>;
  /** The senders and the direct-message participants. */
  users: UserRow[];
  /** The channels of the channel messages. */
  streams: Array<Pick<StreamRow, "id" | "name">>;
  reactions: ReactionRow[];
  submessages: SubmessageRow[];
  /** The realm's linkifiers in order (none read for an empty batch). */
  linkifiers: LinkifierRow[];
};

/**
 * Batch-loads the senders, channels, direct-message participants, reactions, submessages and
 * linkifiers of the messages; `attached`: the reactions and submessages, already read with the rows.
 */
export async function messageLookupRows(db: Db, realmId: number, rows: readonly MessageRow[], attached?: AttachedRows): Promise<MessageLookupRows> {
  const ids = rows.map((r) => r.id);
  const streamIds = [...new Set(rows.flatMap((r) => (r.stream_id === null ? [] : [r.stream_id])))];
  const directIds = [...new Set(rows.filter((r) => r.stream_id === null).map((r) => r.recipient_id))];
  const directMembers = await directRecipientMembers(db, directIds);
  const userIds = [...new Set([...rows.map((r) => r.sender_id), ...[...directMembers.values()].flat()])];
  const [users, streams, reactions, submessages, linkifiers] = await Promise.all([
    usersByIds(db, realmId, userIds),
    getStreamsByIds(db, realmId, streamIds),
    attached?.reactions ?? reactionsOfMessages(db, realmId, ids),
    attached?.submessages ?? submessagesOfMessages(db, ids),
    rows.length === 0 ? [] : listLinkifiers(db, realmId),
  ]);
  return { directMembers, users, streams, reactions, submessages, linkifiers };
}
