/**
 * Messages, one messages-NNNNNN.json at a time: each message under its id, with its rendered
 * HTML as Zulip rendered it (never rendered again: what people saw is what they keep), its edit
 * history in the API's shape (the last edit's time from it, or, with no history, the message's
 * own last_edit_time), its client, and its flags for each user (zulip-flags.ts). Direct
 * conversations of two people (or one) are made as their first message needs them: Zulip kept
 * those as "personal" recipients, Parley as conversations (FL 327).
 */
import { insertFlagRows, insertRows } from "../../store/import/bulk-insert.ts";
import { indexMessages } from "../../store/messages/search-index.ts";
import { RECIPIENT_TYPE, type NewMessage } from "../../store/schema/database.ts";
import type { EditHistoryEntry } from "../../present/messages.ts";
import type { MessageBatch } from "../../formats/zulip/export-reader.ts";
import type { messageRow, Row } from "../../formats/zulip/rows.ts";
import { count, flag, refuse, seconds, type ImportEnv } from "./import-env.ts";
import { ZULIP_RECIPIENT, type ZulipImportState } from "./zulip-state.ts";
import { channelReceivers, flagRowsOf, type FlagMessage, type FlagRow } from "./zulip-flags.ts";

/** Upstream's prefix of resolved topics: a topic change that only adds or removes it is no move. */
const RESOLVED_PREFIX = "✔ ";

/** A channel-wide wildcard mention (@all, @everyone, @channel) as upstream renders it; silent ones notify nobody. */
const CHANNEL_WILDCARD = /<span class="user-mention(?! silent)[^"]*" data-user-id="\*">/;

type ZulipMessage = Row<typeof messageRow>;

/** The HTML Zulip rendered, or (for a message it never rendered) the text escaped in a paragraph. */
export function renderedOrText(rendered: string | null, content: string): string {
  return rendered ?? `<p>${content.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")}</p>`;
}

function isResolveOnly(entry: EditHistoryEntry): boolean {
  if (entry.prev_topic === undefined || entry.topic === undefined || entry.prev_stream !== undefined) return false;
  return entry.topic === RESOLVED_PREFIX + entry.prev_topic || entry.prev_topic === RESOLVED_PREFIX + entry.topic;
}

/** Zulip's stored edit history (newest first) in the API's shape, with the times of the last content edit and the last move. */
function editHistory(m: ZulipMessage): { history: string | null; lastEdit: number | null; lastMove: number | null } {
  if (m.edit_history === null) return { history: null, lastEdit: null, lastMove: null };
  let raw: unknown;
  try {
    raw = JSON.parse(m.edit_history);
  } catch {
    refuse(`message ${m.id}'s edit history is not valid JSON`);
  }
  if (!Array.isArray(raw)) refuse(`message ${m.id}'s edit history is not a list`);
  const entries: EditHistoryEntry[] = raw.map((e: Record<string, unknown>) => {
    const entry: EditHistoryEntry = { user_id: typeof e.user_id === "number" ? e.user_id : null, timestamp: Math.floor(Number(e.timestamp)) };
    const prevTopic = e.prev_topic ?? e.prev_subject;
    if (typeof e.prev_content === "string") entry.prev_content = e.prev_content;
    if (typeof e.prev_rendered_content === "string") entry.prev_rendered_content = e.prev_rendered_content;
    if (typeof e.prev_stream === "number") entry.prev_stream = e.prev_stream;
    if (typeof e.stream === "number") entry.stream = e.stream;
    if (typeof prevTopic === "string") entry.prev_topic = prevTopic;
    if (typeof e.topic === "string") entry.topic = e.topic;
    return entry;
  });
  const lastEdit = entries.find((e) => e.prev_content !== undefined)?.timestamp ?? null;
  const lastMove = entries.find((e) => e.prev_stream !== undefined || (e.prev_topic !== undefined && !isResolveOnly(e)))?.timestamp ?? null;
  return { history: entries.length > 0 ? JSON.stringify(entries) : null, lastEdit, lastMove };
}

/** Where a message goes: its channel, or its direct conversation. */
function addressOf(m: ZulipMessage, state: ZulipImportState): { streamId: number | null; recipientId: number; members: readonly number[] | null } {
  const recipient = state.recipients.get(m.recipient);
  if (!recipient) refuse(`message ${m.id} names recipient ${m.recipient}, which the export does not hold`);
  if (recipient.type === ZULIP_RECIPIENT.stream) {
    const stream = state.streams.get(recipient.typeId);
    if (!stream) refuse(`message ${m.id} names channel ${recipient.typeId}, which the export does not hold`);
    return { streamId: recipient.typeId, recipientId: stream.recipientId, members: null };
  }
  if (recipient.type === ZULIP_RECIPIENT.directGroup) {
    const conversation = state.recipientConversation.get(m.recipient);
    if (!conversation) refuse(`message ${m.id} names group conversation ${recipient.typeId}, which has no members in the export`);
    return { streamId: null, recipientId: conversation.recipientId, members: conversation.members };
  }
  if (!state.users.has(recipient.typeId)) refuse(`message ${m.id} is addressed to user ${recipient.typeId}, who is not in the export`);
  const conversation = state.conversationOf([m.sender, recipient.typeId]);
  return { streamId: null, recipientId: conversation.recipientId, members: conversation.members };
}

/** Writes the conversations made since the last call (before the messages that use them). */
export async function flushConversations(env: ImportEnv, state: ZulipImportState): Promise<void> {
  const pending = state.pendingConversations;
  if (pending.length === 0) return;
  state.pendingConversations = [];
  await insertRows(env.tx, "direct_groups", pending.map((c) => ({ id: c.groupId, realm_id: env.realmId, member_key: c.key })));
  await insertRows(env.tx, "direct_group_members", pending.flatMap((c) => c.members.map((user_id) => ({ group_id: c.groupId, user_id }))));
  await insertRows(env.tx, "recipients", pending.map((c) => ({ id: c.recipientId, realm_id: env.realmId, type: RECIPIENT_TYPE.direct, type_id: c.groupId })));
}

function messageRowOf(env: ImportEnv, m: ZulipMessage, address: ReturnType<typeof addressOf>, state: ZulipImportState): NewMessage {
  const { history, lastEdit, lastMove } = editHistory(m);
  const rendered = renderedOrText(m.rendered_content, m.content);
  return {
    id: m.id,
    realm_id: env.realmId,
    sender_id: m.sender,
    recipient_id: address.recipientId,
    stream_id: address.streamId,
    topic: address.streamId === null ? "" : m.subject,
    content: m.content,
    rendered_content: rendered,
    date_sent: seconds(m.date_sent),
    sending_client: state.clients.get(m.sending_client) ?? "unknown",
    // Without a history (a converted export, or upstream's older edits), the message's own time of its last edit.
    last_edit_time: history === null && m.last_edit_time !== null ? seconds(m.last_edit_time) : lastEdit,
    last_moved_time: lastMove,
    edit_history: history,
    is_me_message: flag(m.content.startsWith("/me ") && rendered.startsWith("<p>/me ")),
    has_link: flag(m.has_link),
    has_image: flag(m.has_image),
    has_attachment: flag(m.has_attachment),
    stream_wildcard_mention: flag(address.streamId !== null && CHANNEL_WILDCARD.test(rendered)),
  };
}

/** Writes one batch of messages with their search entries and flag rows. `idle`: users Zulip had soft-deactivated. */
export async function writeMessageBatch(env: ImportEnv, batch: MessageBatch, state: ZulipImportState, idle: ReadonlySet<number>): Promise<void> {
  const sorted = [...batch.messages].sort((a, b) => a.id - b.id);
  const rows: NewMessage[] = [];
  const forFlags: FlagMessage[] = [];
  for (const m of sorted) {
    if (!state.users.has(m.sender)) refuse(`${batch.file}: message ${m.id} names sender ${m.sender}, who is not in the export`);
    if (m.id <= state.maxMessageId) refuse(`${batch.file}: message ${m.id} comes again, or out of order across files`);
    const address = addressOf(m, state);
    rows.push(messageRowOf(env, m, address, state));
    forFlags.push({ id: m.id, senderId: m.sender, sent: m.date_sent, streamId: address.streamId, members: address.members });
    state.history.see(m.id, m.date_sent);
    state.maxMessageId = m.id;
  }
  await flushConversations(env, state);
  await insertRows(env.tx, "messages", rows);
  await indexMessages(env.tx, env.engine, rows.map((r) => ({ id: r.id ?? 0, topic: r.topic ?? "", renderedContent: r.rendered_content })));
  const byMessage = new Map<number, Map<number, number>>();
  for (const um of batch.userMessages) {
    if (!state.users.has(um.user_profile)) refuse(`${batch.file}: a user message names user ${um.user_profile}, who is not in the export`);
    let users = byMessage.get(um.message);
    if (!users) byMessage.set(um.message, (users = new Map()));
    users.set(um.user_profile, um.flags_mask);
  }
  const flagRows: FlagRow[] = [];
  for (const m of forFlags) {
    const rows = byMessage.get(m.id) ?? new Map<number, number>();
    const receivers = m.streamId === null ? [] : channelReceivers(m, rows, state, idle);
    if (m.streamId !== null) state.runs.observe(m.streamId, m.id, receivers, state.history);
    flagRows.push(...flagRowsOf(m, rows, receivers));
    byMessage.delete(m.id);
  }
  if (byMessage.size > 0) refuse(`${batch.file}: user messages name message ${[...byMessage.keys()][0]}, which is not in that file`);
  await insertFlagRows(env.tx, env.engine, flagRows);
  count(env, "messages", rows.length);
  count(env, "message flag rows", flagRows.length);
}
