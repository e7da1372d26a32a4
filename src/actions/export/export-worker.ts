/**
 * The export worker (upstream's deferred_work realm_export): builds each requested export's
 * tarball off the request path, on actions/job-loop.ts. A process takes an export by marking it
 * started under its id with a lease it renews while it works, so processes sharing the database
 * never build one twice. An export left started, by this process before a crash or a stop, or by
 * another whose lease ran out, is marked failed, as upstream marks an export its worker finds
 * already started. On success the file's path is recorded, the administrator who asked is told
 * by the Notification Bot, and every human administrator gets the realm_export event.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import { systemClock } from "../../clock.ts";
import { removeStoredFiles } from "../../files/storage.ts";
import { getRealm } from "../../store/realm/realms.ts";
import { openReadSnapshot } from "../../store/export/snapshot.ts";
import {
  claimRealmExport,
  dueRealmExports,
  markRealmExportFailed,
  markRealmExportSucceeded,
  nextRealmExportDue,
  realmExportsStartedBy,
  renewRealmExportLease,
} from "../../store/realm/realm-exports.ts";
import { EXPORT_STATUS, EXPORT_TYPE } from "../../model/realm-exports.ts";
import type { RealmExportRow } from "../../store/schema/realm-exports.ts";
import { getUser } from "../../store/users/users.ts";
import { actionCtx, doEnv, withTransaction, type ActionCtx, type ServerDeps } from "../context.ts";
import { JobLoop } from "../job-loop.ts";
import { doSendDirectNotice } from "../messages/notification-bot.ts";
import { exportFileOnDisk, newExportPath } from "./realm-export-files.ts";
import { exportOrganization, type ExportKind } from "./export-organization.ts";
import { doNotifyRealmExport, realmExportQueued } from "./realm-exports.ts";

/** A started export's lease (on the wall clock, as job-loop.ts's due times), renewed every RENEW_MS while its process builds it. */
const LEASE_MS = 60_000;
const RENEW_MS = 15_000;
/** One export at a time per process: an export reads the whole organization. */
const MAX_IN_FLIGHT = 1;
const MAX_SLEEP_MS = 30_000;
const RETRY_MS = 1_000;
const WAKE_DELAY_MS = 10;

/** Upstream's words to the administrator who asked, with the link to the web app's exports. */
const DONE_NOTICE = "Your data export is complete. [View and download exports](/#organization/data-exports-admin).";

/** A running worker; stop() it before closing the store. */
export type RealmExportWorker = { stop(): Promise<void> };

const KIND_BY_TYPE: Record<number, ExportKind> = { [EXPORT_TYPE.public]: "public", [EXPORT_TYPE.fullWithConsent]: "full_with_consent" };

/** Runs `write` in a transaction of the export's realm as the server itself; false when the realm is gone. */
async function inRealm(deps: ServerDeps, realmId: number, write: (ctx: ActionCtx) => Promise<void>): Promise<boolean> {
  const realm = await getRealm(deps.store.reader, realmId);
  if (!realm) return false;
  await write(actionCtx(deps, { realm, actor: null, client: "Internal" }));
  return true;
}

/** Marks an export failed (when still started as `holder` says) and tells the administrators. */
async function failExport(deps: ServerDeps, row: Pick<RealmExportRow, "id" | "realm_id">, holder: { processId: string } | { leaseUntilMs: number }): Promise<void> {
  await inRealm(deps, row.realm_id, (ctx) =>
    withTransaction(ctx, async (tx, emit) => {
      if (await markRealmExportFailed(tx, row.id, ctx.clock.nowMs(), holder)) await doNotifyRealmExport(tx, { realm: ctx.realm, config: ctx.config, emit });
    }),
  );
}

/** Records a built export, tells the one who asked and the administrators; false when the export was no longer this process's. */
async function finishExport(deps: ServerDeps, row: RealmExportRow, processId: string, exportPath: string): Promise<boolean> {
  let done = false;
  await inRealm(deps, row.realm_id, (ctx) =>
    withTransaction(ctx, async (tx, emit) => {
      done = await markRealmExportSucceeded(tx, row.id, processId, exportPath, ctx.clock.nowMs());
      if (!done) return;
      const env = doEnv(ctx, emit);
      const asker = await getUser(tx, ctx.realm.id, row.acting_user_id);
      if (asker && asker.is_active === 1) await doSendDirectNotice(tx, env, asker, DONE_NOTICE);
      await doNotifyRealmExport(tx, env);
    }),
  );
  return done;
}

/** Builds one taken export; a failure or a stop marks it failed. */
async function runExport(deps: ServerDeps, row: RealmExportRow, processId: string, stop: AbortSignal): Promise<void> {
  const { uploadsDir } = deps.config;
  const exportPath = newExportPath(row.realm_id);
  const renew = setInterval(() => {
    void inRealm(deps, row.realm_id, (ctx) => withTransaction(ctx, (tx) => renewRealmExportLease(tx, row.id, processId, systemClock.nowMs() + LEASE_MS).then(() => undefined))).catch((err: unknown) =>
      deps.log.warn({ err, realm_export_id: row.id }, "export lease not renewed"),
    );
  }, RENEW_MS);
  renew.unref();
  // On PostgreSQL the export's snapshot transaction takes a connection of its own rather than one
  // of the server's pool for its whole length; on SQLite it is a connection of its own anyway.
  const { databaseUrl } = deps.config;
  const openSnapshot = deps.store.engine === "postgres" && databaseUrl ? () => openReadSnapshot({ databaseUrl }) : undefined;
  const target = { db: deps.store.reader, engine: deps.store.engine, uploadsDir, openSnapshot, log: (line: string) => deps.log.info({ realm_export_id: row.id }, line) };
  const file = exportFileOnDisk(uploadsDir, exportPath);
  // The export's own random folder: the exporter writes its work files beside the tarball.
  const building = fsp.mkdir(path.dirname(file), { recursive: true }).then(() => exportOrganization(target, row.realm_id, KIND_BY_TYPE[row.export_type] ?? "public", file));
  const stopped = new Promise<"stopped">((resolve) => (stop.aborted ? resolve("stopped") : stop.addEventListener("abort", () => resolve("stopped"), { once: true })));
  try {
    const outcome = await Promise.race([building, stopped]);
    if (outcome === "stopped") {
      // Shutdown does not wait for an export: it fails, as upstream shows one its worker lost.
      deps.log.warn({ realm_export_id: row.id }, "export stopped by shutdown; marked failed");
      void building.catch(() => undefined).finally(() => void removeStoredFiles(uploadsDir, "exports", [exportPath]).catch(() => undefined));
      await failExport(deps, row, { processId });
      return;
    }
    deps.log.info({ realm_export_id: row.id, messages: outcome.messages, bytes: outcome.bytes }, "export written");
    if (!(await finishExport(deps, row, processId, exportPath))) await removeStoredFiles(uploadsDir, "exports", [exportPath]);
  } catch (err) {
    deps.log.error({ err, realm_export_id: row.id }, "export failed");
    await removeStoredFiles(uploadsDir, "exports", [exportPath]).catch(() => undefined);
    await failExport(deps, row, { processId });
  } finally {
    clearInterval(renew);
  }
}

/** Starts building requested exports; first fails those this process left started (it stopped or crashed mid-export). */
export async function startRealmExportWorker(deps: ServerDeps): Promise<RealmExportWorker> {
  const processId = deps.config.processId ?? `port-${deps.config.port}`;
  for (const row of await realmExportsStartedBy(deps.store.reader, processId)) await failExport(deps, row, { processId });
  const loop = new JobLoop<RealmExportRow, RealmExportRow>(
    {
      name: "realm export",
      due: (nowMs, limit) => dueRealmExports(deps.store.reader, nowMs, limit),
      nextDueMs: () => nextRealmExportDue(deps.store.reader, systemClock.nowMs()),
      claim: async (row) => {
        if (row.status === EXPORT_STATUS.started && row.lease_until_ms !== null) {
          // Its process died: nobody builds it any more.
          await failExport(deps, row, { leaseUntilMs: row.lease_until_ms });
          return null;
        }
        let taken = false;
        const found = await inRealm(deps, row.realm_id, (ctx) =>
          withTransaction(ctx, async (tx) => {
            taken = await claimRealmExport(tx, row.id, processId, systemClock.nowMs() + LEASE_MS);
          }),
        );
        return found && taken ? row : null;
      },
      run: (row, stop) => runExport(deps, row, processId, stop),
    },
    deps.log,
    { maxInFlight: MAX_IN_FLIGHT, maxSleepMs: MAX_SLEEP_MS, retryMs: RETRY_MS, wakeDelayMs: WAKE_DELAY_MS },
  );
  const unlisten = realmExportQueued.listen(() => loop.wakeSoon());
  void loop.wake();
  return {
    stop: async () => {
      unlisten();
      await loop.stop();
    },
  };
}
