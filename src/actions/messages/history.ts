/**
 * GET /messages/{id}/history (Zulip's get_message_edit_history): the stored history (newest
 * first) replayed from the current message into snapshots, oldest to newest, each with the
 * topic and content after that edit and the `prev_*` fields of what it changed.
 */
import { JsonableError } from "../../errors.ts";
import { accessMessage } from "../../permissions/message-access.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import type { EditHistoryEntry } from "../../present/messages.ts";
import type { MessageRow } from "../../store/schema/database.ts";
import type { AuthedCtx } from "../context.ts";
import { highlightHtmlDifferences } from "../../markdown/html-diff.ts";

/** One snapshot of the history call (SPEC.md's Edit-history snapshot). */
export type HistorySnapshot = {
  topic: string;
  content: string;
  rendered_content: string;
  timestamp: number;
  user_id: number | null;
  prev_topic?: string;
  stream?: number;
  prev_stream?: number;
  prev_content?: string;
  prev_rendered_content?: string;
  content_html_diff?: string;
};

/** The realm's edit-history visibility: "all", "moves_only" or "none" (allow_edit_history false means none). */
function historyPolicy(ctx: AuthedCtx): string {
  const settings = realmSettings(ctx.realm);
  return settings.allow_edit_history ? settings.message_edit_history_visibility_policy : "none";
}

/** Snapshots newest first, replaying the stored entries backwards from the current message. */
function fillSnapshots(message: MessageRow, entries: EditHistoryEntry[], topicName: (topic: string) => string): HistorySnapshot[] {
  let content = message.content;
  let rendered = message.rendered_content;
  let topic = topicName(message.topic);
  const out: HistorySnapshot[] = [];
  for (const entry of entries) {
    const snapshot: HistorySnapshot = { topic, content, rendered_content: rendered, timestamp: entry.timestamp, user_id: entry.user_id };
    if (entry.prev_topic !== undefined) {
      topic = topicName(entry.prev_topic);
      snapshot.prev_topic = topic;
    }
    if (entry.prev_content !== undefined && entry.prev_rendered_content !== undefined) {
      snapshot.prev_content = entry.prev_content;
      snapshot.prev_rendered_content = entry.prev_rendered_content;
      snapshot.content_html_diff = highlightHtmlDifferences(entry.prev_rendered_content, rendered);
      content = entry.prev_content;
      rendered = entry.prev_rendered_content;
    }
    if (entry.prev_stream !== undefined && entry.stream !== undefined) {
      snapshot.prev_stream = entry.prev_stream;
      snapshot.stream = entry.stream;
    }
    out.push(snapshot);
  }
  out.push({ topic, content, rendered_content: rendered, timestamp: message.date_sent, user_id: message.sender_id });
  return out;
}

/**
 * Under "moves_only", content-only edits are hidden and combined edits lose their content
 * fields (upstream's visible_edit_history_for_message).
 */
function visibleSnapshots(snapshots: HistorySnapshot[], policy: string): HistorySnapshot[] {
  if (policy === "all") return snapshots;
  const out: HistorySnapshot[] = [];
  for (const snapshot of snapshots) {
    if (snapshot.prev_content === undefined) {
      out.push(snapshot);
    } else if (snapshot.prev_topic !== undefined) {
      const { prev_content: _c, prev_rendered_content: _r, content_html_diff: _d, ...rest } = snapshot;
      out.push(rest);
    }
  }
  return out;
}

/** A message's edit history as its viewer may see it, oldest first. */
export async function getMessageHistory(ctx: AuthedCtx, messageId: number, allowEmptyTopicName: boolean): Promise<{ message_history: HistorySnapshot[] }> {
  const policy = historyPolicy(ctx);
  if (policy === "none") throw new JsonableError("Message edit history is disabled in this organization");
  const { message } = await accessMessage(ctx, ctx.db, messageId);
  const entries = message.edit_history === null ? [] : (JSON.parse(message.edit_history) as EditHistoryEntry[]);
  const isChannel = message.stream_id !== null;
  const display = realmSettings(ctx.realm).realm_empty_topic_display_name;
  const topicName = (topic: string) => (isChannel && topic === "" && !allowEmptyTopicName ? display : isChannel ? topic : "");
  const snapshots = visibleSnapshots(fillSnapshots(message, entries, topicName), policy);
  return { message_history: snapshots.reverse() };
}
