/**
 * GET /messages/matches_narrow: which of the given messages (in the caller's personal history)
 * match a narrow, keyed by id as a string, with match_content / match_subject highlighted for a
 * search (Zulip's messages_in_narrow_backend).
 */
import { matchingReceivedIds } from "../../store/messages/message-queries.ts";
import { getMessages as loadMessages } from "../../store/messages/messages.ts";
import type { AuthedCtx } from "../context.ts";
import { narrowFromParam } from "./read.ts";
import { queryScope } from "./narrow-scope.ts";
import { searchFields, searchMatcher, type SearchFields } from "../../narrow/highlight.ts";

/** GET /messages/matches_narrow. */
export async function matchesNarrow(ctx: AuthedCtx, input: { msg_ids: readonly number[]; narrow: readonly unknown[] }): Promise<{ messages: Record<string, SearchFields> }> {
  const narrow = await narrowFromParam(ctx, input.narrow);
  const ids = await matchingReceivedIds(queryScope(ctx), narrow, input.msg_ids);
  const rows = await loadMessages(ctx.db, ctx.realm.id, ids);
  const matcher = narrow.search ? searchMatcher(narrow.search) : null;
  const messages: Record<string, SearchFields> = {};
  for (const row of rows) messages[String(row.id)] = searchFields(row.rendered_content, row.topic, matcher);
  return { messages };
}
