/**
 * Settling a user's unread state before the register snapshot reads it: the unread messages that
 * lack a flag row get one, up to a settled message id, and the user's unread watermark moves
 * there (store/messages/unread-watermarks.ts). Later snapshots then look for row-less unread messages only
 * above it, not through the user's whole history.
 *
 * Settled means no message at or below the id can still commit. On SQLite one writer commits
 * message ids in order, so it is the newest message. On PostgreSQL a send with a lower id can
 * commit after a higher one, so the newest message id is sampled now and then, and an id counts
 * as settled once its sample is UNREAD_SETTLE_SECONDS old (sends take milliseconds).
 */
import type { ActionCtx } from "../context.ts";
import { withTransaction } from "../context.ts";
import type { Db } from "../../store/schema/types.ts";
import { maxMessageId } from "../../store/messages/messages.ts";
import { unreadIdsWithoutRows } from "../../store/lookups/unreads.ts";
import { ensureUnreadWatermark, lockUnreadWatermark, settleUnreadRows, unreadWatermark } from "../../store/messages/unread-watermarks.ts";

/** At most this many unread rows per settling: a user with more catches up over several registers. */
const SETTLE_BATCH = 5_000;

/** The newest message id sampled at `atMs` (performance.now()). */
type Sample = { atMs: number; maxId: number };

/** Samples per store (tests may open several stores in one process). */
const samplesByDb = new WeakMap<Db, Sample[]>();

/** The highest message id that no running send can still commit below (0 when none is known yet). */
async function settledMessageId(ctx: ActionCtx): Promise<number> {
  if (ctx.engine === "sqlite") return maxMessageId(ctx.db);
  const lagMs = ctx.config.unreadSettleSeconds * 1000;
  const now = performance.now();
  let samples = samplesByDb.get(ctx.db);
  if (!samples) samplesByDb.set(ctx.db, (samples = []));
  // A sample every quarter of the lag (at least a second apart) keeps the settled id at most 1.25 lags behind.
  const last = samples.at(-1);
  if (!last || now - last.atMs >= Math.max(1000, lagMs / 4) || lagMs === 0) samples.push({ atMs: now, maxId: await maxMessageId(ctx.db) });
  // Keep the newest sample that is old enough, and those after it.
  while (samples.length > 1 && now - samples[1].atMs >= lagMs) samples.shift();
  return now - samples[0].atMs >= lagMs ? samples[0].maxId : 0;
}

/** Gives the user's row-less unread messages up to the settled id their rows, and raises their watermark. */
export async function settleUnreads(ctx: ActionCtx, userId: number): Promise<void> {
  const [through, watermark] = await Promise.all([settledMessageId(ctx), unreadWatermark(ctx.db, userId)]);
  if (through <= watermark) return;
  // The settling transaction locks the row, so it must exist before.
  if (watermark === 0) await withTransaction(ctx, (tx) => ensureUnreadWatermark(tx, userId));
  await withTransaction(ctx, async (tx) => {
    const from = await lockUnreadWatermark(tx, ctx.engine, userId);
    if (through <= from) return;
    const ids = await unreadIdsWithoutRows(tx, ctx.realm.id, userId, from, through, SETTLE_BATCH);
    const reached = ids.length === SETTLE_BATCH ? ids[ids.length - 1] : through;
    await settleUnreadRows(tx, userId, ids, reached);
  });
}
