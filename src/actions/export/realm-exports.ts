/**
 * Organization data exports through the API (upstream's zerver/views/realm_export.py and
 * zerver/actions/realm_export.py): asking for one (POST /export/realm, within upstream's weekly
 * limit and size bounds), listing them, deleting a finished one's file, the users' consents to
 * the export of their private data, and the realm_export event every change sends the realm's
 * human administrators. The export itself runs later, in export-worker.ts.
 */
import { AdministratorRequiredError, JsonableError } from "../../errors.ts";
import { realmExportEvent } from "../../events/kinds/realm-exports.ts";
import { removeStoredFiles } from "../../files/storage.ts";
import { userSetting } from "../../model/user-settings.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { presentRealmExport, type ApiRealmExport } from "../../present/realm-exports.ts";
import { activeRealmMembers } from "../../store/channels/subscriptions.ts";
import { countRealmExportsSince, getRealmExport, insertRealmExport, listRealmExports, markRealmExportDeleted, realmExportSize } from "../../store/realm/realm-exports.ts";
import { EXPORT_STATUS } from "../../model/realm-exports.ts";
import type { Db } from "../../store/schema/types.ts";
import { listUsers } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { JobSignal } from "../job-loop.ts";

/** Fired after a transaction that asked for an export commits: the export worker of this process looks at once. */
export const realmExportQueued = new JobSignal();

/** Upstream's EXPORT_LIMIT: exports an organization may ask for in a week. */
const EXPORTS_PER_WEEK = 5;
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** Zulip's @require_realm_admin, checked again past the route. */
function checkAdmin(ctx: AuthedCtx): void {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
}

/** The realm's exports as the API shows them. */
async function presentedExports(db: Db, env: Pick<DoEnv, "realm" | "config">): Promise<ApiRealmExport[]> {
  return (await listRealmExports(db, env.realm.id)).map((row) => presentRealmExport(row, env.config.externalUrl));
}

/** Upstream's notify_realm_export: the realm's exports, whole, to its active human administrators. */
export async function doNotifyRealmExport(tx: Db, env: Pick<DoEnv, "realm" | "config" | "emit">): Promise<void> {
  const admins = (await activeRealmMembers(tx, env.realm.id)).filter((m) => isRealmAdmin(m) && m.is_bot === 0).map((m) => m.id);
  env.emit(realmExportEvent(await presentedExports(tx, env)), admins);
}

/** POST /export/realm: records the export (built in the background) and returns its id. */
export async function requestRealmExport(ctx: AuthedCtx, input: { export_type: number }): Promise<{ id: number }> {
  checkAdmin(ctx);
  const size = await realmExportSize(ctx.db, ctx.realm.id);
  const limits = ctx.config.exportLimits;
  if (size.messages > limits.maxMessages || size.uploadBytes > limits.maxUploadBytes) {
    throw new JsonableError(`Please request a manual export from ${ctx.config.ownerEmail}.`);
  }
  return withTransaction(ctx, async (tx, emit) => {
    const nowMs = ctx.clock.nowMs();
    if ((await countRealmExportsSince(tx, ctx.realm.id, nowMs - WEEK_MS)) >= EXPORTS_PER_WEEK) throw new JsonableError("Exceeded rate limit.");
    const row = await insertRealmExport(tx, ctx.realm.id, ctx.actor.id, input.export_type, nowMs);
    await doNotifyRealmExport(tx, { realm: ctx.realm, config: ctx.config, emit });
    emit.afterCommit(realmExportQueued.fire);
    return { id: row.id };
  });
}

/** GET /export/realm. */
export async function getRealmExports(ctx: AuthedCtx): Promise<{ exports: ApiRealmExport[] }> {
  checkAdmin(ctx);
  return { exports: await presentedExports(ctx.db, ctx) };
}

/** DELETE /export/realm/{export_id}: a finished export's file goes, and the export is marked deleted. */
export async function deleteRealmExport(ctx: AuthedCtx, exportId: number): Promise<Record<string, never>> {
  checkAdmin(ctx);
  const exportPath = await withTransaction(ctx, async (tx, emit) => {
    const row = await getRealmExport(tx, ctx.realm.id, exportId);
    if (!row) throw new JsonableError("Invalid data export ID");
    if (row.status === EXPORT_STATUS.deleted) throw new JsonableError("Export already deleted");
    if (row.status === EXPORT_STATUS.failed) throw new JsonableError("Export failed, nothing to delete");
    if (row.status !== EXPORT_STATUS.succeeded) throw new JsonableError("Export still in progress");
    await markRealmExportDeleted(tx, ctx.realm.id, row.id, ctx.clock.nowMs());
    await doNotifyRealmExport(tx, { realm: ctx.realm, config: ctx.config, emit });
    return row.export_path;
  });
  if (exportPath !== null) await removeStoredFiles(ctx.config.uploadsDir, "exports", [exportPath]);
  return {};
}

/** GET /export/realm/consents: each active human user's allow_private_data_export. */
export async function getExportConsents(ctx: AuthedCtx): Promise<{ export_consents: Array<{ user_id: number; consented: boolean }> }> {
  checkAdmin(ctx);
  const users = (await listUsers(ctx.db, ctx.realm.id)).filter((u) => u.is_active === 1 && u.is_bot === 0);
  return { export_consents: users.map((u) => ({ user_id: u.id, consented: userSetting(u, "allow_private_data_export") === true })) };
}
