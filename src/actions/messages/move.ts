/**
 * Topic and channel moves of PATCH /messages/{id}: which messages a propagate mode covers, and
 * rewriting them (topic, channel, FL 365 last_moved_time, edit history, search entries).
 */
import type { EditHistoryEntry } from "../../present/messages.ts";
import type { Db, Engine } from "../../store/schema/types.ts";
import { indexMessage } from "../../store/messages/search-index.ts";
import { receivedIds, storedFlags } from "../../store/messages/message-flags.ts";
import { streamRecipientId, topicMessageRows, updateMessage } from "../../store/messages/messages.ts";
import type { MessageRow, StreamRow, UserRow } from "../../store/schema/database.ts";
import type { PropagateMode } from "./edit-checks.ts";

/** Messages of the target's topic (case-insensitive), oldest first, that `actor` can see. */
export async function topicMessages(db: Db, actor: UserRow, target: MessageRow, stream: StreamRow, fromId = 0): Promise<MessageRow[]> {
  const rows = await topicMessageRows(db, target.realm_id, stream.id, target.topic, fromId);
  if (stream.history_public_to_subscribers === 1) return rows;
  // Protected history: only the messages the actor received (or holds a row for).
  const received = await receivedIds(db, actor.id, rows);
  const held = await storedFlags(db, actor.id, rows.map((r) => r.id));
  const visible = new Set([...received, ...held.keys()]);
  return rows.filter((r) => visible.has(r.id));
}

/** The messages a move covers under `mode` (always including the target). */
export async function messagesToMove(db: Db, actor: UserRow, target: MessageRow, stream: StreamRow, mode: PropagateMode): Promise<MessageRow[]> {
  if (mode === "change_one") return [target];
  const rows = await topicMessages(db, actor, target, stream, mode === "change_later" ? target.id : 0);
  return rows.some((r) => r.id === target.id) ? rows : [...rows, target].sort((a, b) => a.id - b.id);
}

/** The edit-history list of a row with `entry` added as the newest. */
export function withHistoryEntry(stored: string | null, entry: EditHistoryEntry): string {
  const entries = stored === null ? [] : (JSON.parse(stored) as EditHistoryEntry[]);
  return JSON.stringify([entry, ...entries]);
}

/** What a move changes, and the history entry each moved message gets (the target's may carry content too). */
type MovePlan = {
  topic: string | null;
  toStream: StreamRow | null;
  /** Whether this counts as a move for last_moved_time (not a bare resolve/unresolve). */
  setsMovedTime: boolean;
  entry: EditHistoryEntry;
};

/** Rewrites the moved messages; `targetEntry` replaces the plan's entry for the target message. Returns the new rows. */
export async function applyMove(db: Db, engine: Engine, realmId: number, messages: readonly MessageRow[], plan: MovePlan, target: { id: number; entry: EditHistoryEntry }, now: number): Promise<MessageRow[]> {
  const recipientId = plan.toStream === null ? null : await streamRecipientId(db, realmId, plan.toStream.id);
  const out: MessageRow[] = [];
  for (const message of messages) {
    const entry = message.id === target.id ? target.entry : plan.entry;
    const row = await updateMessage(db, realmId, message.id, {
      ...(plan.topic === null ? {} : { topic: plan.topic }),
      ...(plan.toStream === null || recipientId === null ? {} : { stream_id: plan.toStream.id, recipient_id: recipientId }),
      ...(plan.setsMovedTime ? { last_moved_time: now } : {}),
      edit_history: withHistoryEntry(message.edit_history, entry),
    });
    if (plan.topic !== null) await indexMessage(db, engine, { id: row.id, topic: row.topic, renderedContent: row.rendered_content });
    out.push(row);
  }
  return out;
}
