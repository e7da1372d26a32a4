/**
 * The messages of an export, a chunk of 1,000 at a time (upstream's chunk size), each chunk one
 * messages-NNNNNN.json: Zulip's Message rows (times as UNIX seconds, the client by id, the edit
 * history as stored) and a UserMessage row per user the message concerns, its flags packed as
 * upstream's flags_mask. Who received a message is written as Zulip says it: a row without the
 * "historical" bit; a row of someone who did not receive it (they starred it from the channel's
 * history, say) has the bit. Parley keeps no row for a flag set that is the default, so the
 * default is written out here. The chunks' message ids also give the reactions and submessages
 * their rows (export-message-tables.ts), read again by id range when realm.json is written.
 */
import { MESSAGE_FLAG } from "../../store/schema/database.ts";
import { flagRowsOf, messagesAfter, type ExportMessage } from "../../store/export/message-chunks.ts";
import { ZULIP_FLAG_BITS, type ZulipFlag } from "../../formats/zulip/flags.ts";
import type { ZulipExportWriter } from "../../formats/zulip/export-writer.ts";
import type { ExportScope } from "./export-scope.ts";
import type { ExportEnv } from "./export-env.ts";

/** Messages per messages-NNNNNN.json, as upstream. */
export const MESSAGE_CHUNK = 1000;

const FLAG_MAP: ReadonlyArray<[number, ZulipFlag]> = [
  [MESSAGE_FLAG.read, "read"],
  [MESSAGE_FLAG.starred, "starred"],
  [MESSAGE_FLAG.collapsed, "collapsed"],
  [MESSAGE_FLAG.mentioned, "mentioned"],
  [MESSAGE_FLAG.stream_wildcard_mentioned, "stream_wildcard_mentioned"],
  [MESSAGE_FLAG.topic_wildcard_mentioned, "topic_wildcard_mentioned"],
  [MESSAGE_FLAG.has_alert_word, "has_alert_word"],
  [MESSAGE_FLAG.historical, "historical"],
];

/** Zulip's flags_mask for Parley's flag bits. */
export function zulipFlagsMask(bits: number): number {
  let mask = 0;
  for (const [parley, zulip] of FLAG_MAP) if ((bits & parley) !== 0) mask |= ZULIP_FLAG_BITS[zulip];
  return mask;
}

/** The exported messages of the organization, a chunk at a time (each with who received each message). */
export async function* exportedChunks(env: ExportEnv, scope: ExportScope): AsyncGenerator<Array<{ m: ExportMessage; receivers: number[] }>> {
  for (let after = 0; ; ) {
    const page = await messagesAfter(env.db, env.realmId, after, MESSAGE_CHUNK);
    if (page.length === 0) return;
    after = page[page.length - 1].id;
    const kept = page.map((m) => ({ m, receivers: scope.receivers(m) })).filter(({ m, receivers }) => scope.includes(m, receivers));
    if (kept.length > 0) yield kept;
  }
}

function messageRow(env: ExportEnv, scope: ExportScope, m: ExportMessage, clients: ReadonlyMap<string, number>): object {
  const recipient = m.stream_id === null ? scope.directRecipient(m.recipient_id, m.sender_id).recipient : m.recipient_id;
  const edited = Math.max(m.last_edit_time ?? 0, m.last_moved_time ?? 0);
  return {
    id: m.id,
    sender: m.sender_id,
    recipient,
    realm: env.realmId,
    type: 1,
    subject: m.topic,
    content: m.content,
    rendered_content: m.rendered_content,
    rendered_content_version: 1,
    date_sent: m.date_sent,
    sending_client: clients.get(m.sending_client) ?? null,
    last_edit_time: edited === 0 ? null : edited,
    edit_history: m.edit_history,
    has_attachment: m.has_attachment === 1,
    has_image: m.has_image === 1,
    has_link: m.has_link === 1,
    is_channel_message: m.stream_id !== null,
  };
}

/** One user's flags_mask on a message, or null when the export holds no row for them. */
function maskOf(scope: ExportScope, m: ExportMessage, userId: number, received: boolean, stored: number | undefined): number | null {
  if (!received && stored === undefined) return null;
  const own = scope.isPrivateOf(userId);
  if (!received && !own) return null;
  const bits = own ? (stored ?? (m.sender_id === userId ? MESSAGE_FLAG.read : 0)) : MESSAGE_FLAG.read;
  let mask = zulipFlagsMask(received ? bits & ~MESSAGE_FLAG.historical : bits | MESSAGE_FLAG.historical);
  if (received && m.stream_wildcard_mention === 1 && own) mask |= ZULIP_FLAG_BITS.stream_wildcard_mentioned;
  if (m.stream_id === null) mask |= ZULIP_FLAG_BITS.is_private;
  return mask;
}

/** Writes every messages file; returns how many messages went in. */
export async function writeMessageFiles(
  env: ExportEnv,
  scope: ExportScope,
  writer: ZulipExportWriter,
  clients: ReadonlyMap<string, number>,
): Promise<number> {
  let total = 0;
  let userMessageId = 0;
  for await (const chunk of exportedChunks(env, scope)) {
    const flags = new Map<number, Map<number, number>>();
    for (const r of await flagRowsOf(env.db, chunk.map(({ m }) => m.id))) {
      let byUser = flags.get(r.message_id);
      if (!byUser) flags.set(r.message_id, (byUser = new Map()));
      byUser.set(r.user_id, r.flags);
    }
    const messages: object[] = [];
    const userMessages: object[] = [];
    for (const { m, receivers } of chunk) {
      messages.push(messageRow(env, scope, m, clients));
      const stored = flags.get(m.id) ?? new Map<number, number>();
      const users = new Set([...receivers, ...stored.keys()]);
      for (const userId of [...users].sort((a, b) => a - b)) {
        const mask = maskOf(scope, m, userId, receivers.includes(userId), stored.get(userId));
        if (mask !== null) userMessages.push({ id: ++userMessageId, user_profile: userId, message: m.id, flags_mask: mask });
      }
    }
    await writer.writeMessages(messages, userMessages);
    total += messages.length;
    env.log(`messages: ${writer.messageFiles} files, ${total} messages`);
  }
  return total;
}
