/**
 * The background sweep of SPEC.md's attachment lifecycle: uploads no message links are deleted
 * (rows and files) once UNCLAIMED_UPLOAD_WEEKS have passed since upload. Runs on the injected
 * clock, so tests drive it by advancing time; every realm is swept.
 */
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Config } from "../../config.ts";
import { scheduleSweeps } from "../../events/gc.ts";
import { removeStoredFiles } from "../../files/storage.ts";
import { deleteAttachments, unclaimedAttachments } from "../../store/messages/attachments.ts";
import type { Database } from "../../store/schema/database.ts";

/** The sweep runs hourly: the deadline is weeks, so an hour late is immaterial. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** Rows deleted per batch, to keep each transaction short. */
const BATCH = 500;
const WEEK_SECONDS = 7 * 24 * 60 * 60;

/** What the sweep runs on: the store, the clock, the configuration (the lifespan) and a log. */
type SweepDeps = { db: Kysely<Database>; clock: Clock; config: Config; log: Logger };

/** Deletes unclaimed uploads older than the configured weeks; returns how many were deleted. */
async function sweepUnclaimedAttachments(deps: SweepDeps): Promise<number> {
  const cutoff = Math.floor(deps.clock.nowMs() / 1000) - deps.config.unclaimedUploadWeeks * WEEK_SECONDS;
  let total = 0;
  for (;;) {
    const rows = await deps.db.transaction().execute(async (tx) => {
      const batch = await unclaimedAttachments(tx, cutoff, BATCH);
      await deleteAttachments(tx, batch.map((r) => r.id));
      return batch;
    });
    await removeStoredFiles(deps.config.uploadsDir, "files", rows.map((r) => r.path_id));
    for (const row of rows) deps.log.info({ attachment_id: row.id, realm_id: row.realm_id, size: row.size }, "deleted unclaimed upload");
    total += rows.length;
    if (rows.length < BATCH) return total;
  }
}

/** Starts the periodic sweep; stop() it before closing the store. */
export function startAttachmentSweep(deps: SweepDeps): { stop(): void } {
  return scheduleSweeps(deps.clock, SWEEP_INTERVAL_MS, () => {
    sweepUnclaimedAttachments(deps).catch((err: unknown) => deps.log.error({ err }, "attachment sweep failed"));
  });
}
