/** GET /users/me/{stream_id}/topics: a channel's topics from its messages, newest first. */
import { realmSettings } from "../../permissions/realm-settings.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import { streamTopicMaxIds } from "../../store/messages/messages.ts";
import type { AuthedCtx } from "../context.ts";

/**
 * Topics the caller can see (every message when the history is public to subscribers, else the
 * messages they received) with the newest message id of each. Topics differing only in case
 * are one, named as in its newest message (Zulip's get_topic_history_for_stream).
 */
export async function listStreamTopics(ctx: AuthedCtx, streamId: number, opts: { allow_empty_topic_name: boolean }): Promise<{ topics: Array<{ name: string; max_id: number }> }> {
  const { stream } = await accessStreamById(ctx, streamId);
  const rows = await streamTopicMaxIds(ctx.db, ctx.realm.id, stream.id, stream.history_public_to_subscribers !== 1 ? ctx.actor.id : null);
  const byCanonical = new Map<string, { name: string; max_id: number }>();
  for (const row of rows.map((r) => ({ name: r.topic, max_id: r.max_id })).sort((a, b) => a.max_id - b.max_id)) {
    byCanonical.set(row.name.toLowerCase(), row);
  }
  const display = realmSettings(ctx.realm).realm_empty_topic_display_name;
  const topics = [...byCanonical.values()].map((t) => ({ name: t.name === "" && !opts.allow_empty_topic_name ? display : t.name, max_id: t.max_id }));
  return { topics: topics.sort((a, b) => b.max_id - a.max_id) };
}
