/**
 * Reading messages through a narrow: the anchored range of GET /messages (and POST
 * /messages/flags/narrow), explicit id lists, and the first unread message, with Zulip's
 * found_anchor / found_oldest / found_newest rules (zerver/lib/narrow.py fetch_messages).
 */
import { sql, type Expression, type SqlBool } from "kysely";
import { MAX_STORED_ID, type Db, type Engine } from "../schema/types.ts";
import { splitViewerFlags, unreadForSql, withViewerFlags } from "./message-flags.ts";
import { MESSAGE_FLAG, type MessageRow } from "../schema/database.ts";
import { unreadWatermark } from "./unread-watermarks.ts";
import { restrictToSearch, type SearchedQuery } from "./search-query.ts";
import type { BuiltNarrow } from "./message-narrow.ts";
import { executeRepeated } from "../engine/pg-named-statements.ts";
import { collectChunks, idChunks } from "../engine/chunks.ts";
import { splitAttachedRows, withAttachedRows, type AttachedRows } from "./message-attached.ts";

/** Where a query runs: the store and engine, the realm and the viewer. */
export type QueryScope = { db: Db; engine: Engine; realmId: number; viewerId: number };

/** Anchor `newest` (and any larger id): Zulip's LARGER_THAN_MAX_MESSAGE_ID. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

/** Which messages around an anchor to read; `first_unread` is resolved here. */
type RangeRequest = { anchor: number | "first_unread"; numBefore: number; numAfter: number; includeAnchor: boolean };

/** Message ids of a range, ascending, with what the client may conclude about the edges. */
export type RangeResult = {
  ids: number[];
  anchor: number;
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
  historyLimited: boolean;
};

/**
 * Ids of the realm's messages that pass `visibility` and match the narrow, as a query to refine,
 * with the id column to bound and order it by (a search may have its index drive the query).
 */
function matching(scope: QueryScope, narrow: BuiltNarrow, visibility: Expression<SqlBool>): SearchedQuery {
  const query = scope.db
    .selectFrom("messages")
    .select("messages.id")
    .where("messages.realm_id", "=", scope.realmId)
    .where(visibility)
    .where(narrow.where);
  return narrow.search ? restrictToSearch(scope.engine, narrow.search.terms, query) : { query, id: sql.ref("messages.id") };
}

/**
 * The oldest unread message of the narrow, skipping muted channels and topics; else
 * LARGER_THAN_MAX_MESSAGE_ID. At or below the viewer's unread watermark every unread message has
 * a flag row without `read` (store/messages/unread-watermarks.ts), so that part is found through those rows
 * (the partial index user_message_flags_unread), as Zulip finds it through its unread UserMessage
 * rows, rather than by walking the narrow's history from its oldest message; above the watermark
 * (the messages since the viewer's last settling) the narrow is walked.
 */
async function firstUnreadId(scope: QueryScope, narrow: BuiltNarrow): Promise<number> {
  const [watermark, unmuted] = await Promise.all([unreadWatermark(scope.db, scope.viewerId), narrow.unmuted()]);
  const first = (range: (id: SearchedQuery["id"]) => Expression<SqlBool>) => {
    const { query, id } = matching(scope, narrow, narrow.personal);
    return query.where(unreadForSql(scope.viewerId)).where(unmuted).where(range(id)).orderBy(id, "asc").limit(1).executeTakeFirst();
  };
  if (watermark > 0) {
    // Literal, as the partial index user_message_flags_unread writes it (SQLite matches it by its text).
    const stored = await first((id) => sql<SqlBool>`${id} in (select uf.message_id from user_message_flags uf
      where uf.user_id = ${scope.viewerId} and (uf.flags & ${sql.lit(MESSAGE_FLAG.read)}) = 0 and uf.message_id <= ${watermark})`);
    if (stored) return stored.id;
  }
  const row = await first((id) => sql<SqlBool>`${id} > ${watermark}`);
  return row?.id ?? LARGER_THAN_MAX_MESSAGE_ID;
}

type Plan = { before: { upTo: number | null; limit: number } | null; after: { from: number | null; limit: number } | null };

/** Zulip's limit_query_to_range: at most one query per side, with headroom for the anchor row. */
function rangePlan(anchor: number, numBefore: number, numAfter: number, includeAnchor: boolean, left: boolean, right: boolean): Plan {
  const needBefore = !left && numBefore > 0;
  const needAfter = !right && numAfter > 0;
  const include = includeAnchor ? 1 : 0;
  if (needBefore && needAfter) {
    return { before: { upTo: anchor - 1, limit: numBefore }, after: { from: anchor, limit: numAfter + 1 } };
  }
  if (needBefore) return { before: { upTo: right ? null : anchor - (1 - include), limit: numBefore + (right ? 0 : include) }, after: null };
  if (needAfter) return { before: null, after: { from: left ? null : anchor + (1 - include), limit: numAfter + include } };
  return { before: null, after: null };
}

/** PostgreSQL refuses a bound beyond an integer column's range: bounds are capped. */
const idBound = (n: number) => Math.min(n, MAX_STORED_ID);

/** The range's queries, each run by `run` (which may widen what it selects), and the range's rows, ascending. */
async function readRange<R extends { id: number }>(
  scope: QueryScope,
  narrow: BuiltNarrow,
  request: RangeRequest,
  run: (query: SearchedQuery["query"]) => Promise<R[]>,
): Promise<{ range: RangeResult; rows: R[] }> {
  const anchor = request.anchor === "first_unread" ? await firstUnreadId(scope, narrow) : request.anchor;
  const left = anchor === 0;
  const right = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  const numBefore = request.numBefore;
  const numAfter = right ? 0 : request.numAfter;
  const plan = rangePlan(anchor, numBefore, numAfter, request.includeAnchor, left, right);
  const { query, id } = matching(scope, narrow, narrow.visible);
  const found = new Map<number, R>();
  const take = (rows: R[]) => {
    for (const row of rows) found.set(row.id, row);
  };
  // Limits are written into the SQL: a kept plan (a named statement on PostgreSQL) is chosen for
  // its page size, which a parameter would hide from the planner.
  if (plan.before) {
    const q = plan.before.upTo === null ? query : query.where(id, "<=", idBound(plan.before.upTo));
    take(await run(q.orderBy(id, "desc").limit(sql.lit(plan.before.limit))));
  }
  if (plan.after) {
    const q = plan.after.from === null ? query : query.where(id, ">=", idBound(plan.after.from));
    take(await run(q.orderBy(id, "asc").limit(sql.lit(plan.after.limit))));
  }
  if (!plan.before && !plan.after && anchor <= MAX_STORED_ID) take(await run(query.where(id, "=", anchor)));
  const range = limitRows([...found.keys()].sort((a, b) => a - b), anchor, numBefore, numAfter, left, right);
  return { range, rows: range.ids.flatMap((id) => found.get(id) ?? []) };
}

/** Reads the anchored range of a narrow (anchor 0 = oldest; LARGER_THAN_MAX_MESSAGE_ID = newest). */
export async function fetchMessageRange(scope: QueryScope, narrow: BuiltNarrow, request: RangeRequest): Promise<RangeResult> {
  return (await readRange(scope, narrow, request, (query) => query.execute())).range;
}

/**
 * fetchMessageRange, with the messages' rows and the viewer's flags read by the same queries (and on
 * PostgreSQL their reactions and submessages too: `attached`).
 */
export async function fetchMessageRangeWithFlags(
  scope: QueryScope,
  narrow: BuiltNarrow,
  request: RangeRequest,
): Promise<{ range: RangeResult; rows: MessageRow[]; flags: Map<number, readonly string[]>; attached?: AttachedRows }> {
  if (scope.engine === "postgres") {
    // A page's text repeats per narrow shape and page size: a named statement, planned once per
    // connection (parsing and planning took half of PostgreSQL's time for a page of 100). Not with
    // a search: the best plan depends on the words, which one kept plan cannot follow.
    const { range, rows } = await readRange(scope, narrow, request, (query) => {
      const page = withAttachedRows(withViewerFlags(query, scope.viewerId));
      return narrow.search === null ? executeRepeated(scope.db, page) : page.execute();
    });
    const { rows: withFlags, attached } = splitAttachedRows(rows);
    return { range, ...splitViewerFlags(scope.viewerId, withFlags), attached };
  }
  const { range, rows } = await readRange(scope, narrow, request, (query) => withViewerFlags(query, scope.viewerId).execute());
  return { range, ...splitViewerFlags(scope.viewerId, rows) };
}

/** Zulip's post_process_limited_query: trims headroom and works out the found_* flags. */
function limitRows(ids: number[], anchor: number, numBefore: number, numAfter: number, left: boolean, right: boolean): RangeResult {
  let before = right ? ids : ids.filter((id) => id < anchor);
  const atAnchor = right ? [] : ids.filter((id) => id === anchor);
  let after = right ? [] : ids.filter((id) => id > anchor);
  if (numBefore > 0) before = before.slice(-numBefore);
  if (numAfter > 0) after = after.slice(0, numAfter);
  return {
    ids: [...before, ...atAnchor, ...after],
    anchor,
    foundAnchor: atAnchor.length === 1,
    foundOldest: left || before.length < numBefore,
    foundNewest: right || after.length < numAfter,
    // No plan limits history here, so nothing is ever hidden for that reason.
    historyLimited: false,
  };
}

/** The visible messages among `ids` that match the narrow (GET /messages with message_ids), ascending. */
export async function fetchRequestedMessages(scope: QueryScope, narrow: BuiltNarrow, ids: readonly number[]): Promise<number[]> {
  const { query, id } = matching(scope, narrow, narrow.visible);
  const rows = await collectChunks(idChunks(ids), (chunk) => query.where(id, "in", chunk).orderBy(id, "asc").execute());
  return rows.map((r) => r.id);
}

/** The messages among `ids` in the viewer's personal history that match the narrow (matches_narrow), ascending. */
export async function matchingReceivedIds(scope: QueryScope, narrow: BuiltNarrow, ids: readonly number[]): Promise<number[]> {
  const { query, id } = matching(scope, narrow, narrow.personal);
  const rows = await collectChunks(idChunks(ids), (chunk) => query.where(id, "in", chunk).orderBy(id, "asc").execute());
  return rows.map((r) => r.id);
}
