/**
 * Presence (Zulip's views/presence.py and actions/presence.py): POST /users/me/presence records
 * the caller's report and answers the realm's presence data; GET /realm/presence and
 * GET /users/{user_id_or_email}/presence read it. A report writes only when it moves a stored
 * time by PRESENCE_UPDATE_MIN_FREQ_SECONDS or more, and announces the user (a `presence` event)
 * only when the user comes online, so the steady once-a-minute ping is one read and one small
 * write, and most repeated pings are one read.
 */
import { nowSeconds } from "../../clock.ts";
import { JsonableError } from "../../errors.ts";
import { presenceEvent } from "../../events/kinds/presence.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { accessUserByEmail, accessUserById, userIdsWhoCanAccess } from "../../permissions/user-access.ts";
import {
  legacyPresenceEntry,
  modernPresence,
  presenceTimes,
  singleUserPresence,
  PRESENCE_OFFLINE_THRESHOLD_SECONDS,
  PRESENCE_PING_INTERVAL_SECONDS,
  PRESENCE_UPDATE_MIN_FREQ_SECONDS,
  type ModernPresence,
  type SingleUserPresence,
} from "../../present/presence.ts";
import { realmPresences, type RealmPresences } from "../../register/presence.ts";
import { apiEmail, emailDomain } from "../../model/emails.ts";
import { getUserPresence, putUserPresence, putUserPresences } from "../../store/users/presence.ts";
import { PresenceWriteBehind } from "../../store/users/presence-write-behind.ts";
import type { UserRow } from "../../store/schema/database.ts";
import type { UserPresenceRow } from "../../store/schema/presence.ts";
import type { Db } from "../../store/schema/types.ts";
import { userSetting } from "../../model/user-settings.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { doEnv, withBackgroundTransaction, withTransaction, type AuthedCtx, type DoEnv, type ServerDeps } from "../context.ts";

/**
 * A user last active longer ago than this, reporting "active", has come online: other clients may
 * already show them offline, and their next poll is up to a ping interval away (Zulip's choice).
 */
const NEWLY_ONLINE_AFTER_SECONDS = PRESENCE_OFFLINE_THRESHOLD_SECONDS - PRESENCE_PING_INTERVAL_SECONDS - 10;

/** Before the first report, times count as a day old, so a first report always comes online. */
const NEVER_SECONDS = 86_400;

/** How far back invisible mode dates the last presence, so every client shows the user offline (Zulip's fudge of 120 s). */
const INVISIBLE_BACKDATE_SECONDS = PRESENCE_OFFLINE_THRESHOLD_SECONDS + 120;

/** A report's status. */
type PresenceStatus = "active" | "idle";

/** What POST /users/me/presence accepts (wire names). */
type UpdatePresenceInput = {
  status: string;
  ping_only: boolean;
  new_user_input: boolean;
  slim_presence: boolean;
  last_update_id?: number;
  history_limit_days?: number;
};

/** The stored times a report leads to: null when nothing changes. */
type PresenceChange = { times: Pick<UserPresenceRow, "last_active_time" | "last_connected_time">; creating: boolean; cameOnline: boolean } | null;

/** Zulip's do_update_user_presence decision, from the stored row (if any) and a report at `now`. */
function presenceChange(old: Omit<UserPresenceRow, "last_update_id"> | undefined, status: PresenceStatus, now: number): PresenceChange {
  const active = status === "active";
  if (!old) return { times: { last_active_time: active ? now : null, last_connected_time: now }, creating: true, cameOnline: active };
  const sinceActive = old.last_active_time === null ? NEVER_SECONDS : now - old.last_active_time;
  const sinceConnected = now - old.last_connected_time;
  const times = { last_active_time: old.last_active_time, last_connected_time: old.last_connected_time };
  let changed = false;
  if (sinceConnected > PRESENCE_UPDATE_MIN_FREQ_SECONDS) {
    times.last_connected_time = now;
    changed = true;
  }
  if (active && sinceActive > PRESENCE_UPDATE_MIN_FREQ_SECONDS) {
    times.last_active_time = now;
    // Keep last_connected_time >= last_active_time.
    times.last_connected_time = Math.max(times.last_connected_time, now);
    changed = true;
  }
  return changed ? { times, creating: false, cameOnline: active && sinceActive > NEWLY_ONLINE_AFTER_SECONDS } : null;
}

/**
 * Stores `times` for `user` under the realm's next sequence number and announces them when
 * `announce` (always when `force`, else only to at most `config.presenceEventUserLimit` users,
 * Zulip's USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS: each announcement costs a delivery per
 * recipient, and the share of them watching the user list falls as realms grow; and unless the
 * realm disabled presence). Trusted: checks nothing.
 */
async function doPutPresence(
  tx: Db,
  env: Pick<DoEnv, "realm" | "clock" | "config" | "emit"> & PresenceWrites,
  user: UserRow,
  times: Pick<UserPresenceRow, "last_active_time" | "last_connected_time">,
  opts: { announce: boolean; force: boolean },
): Promise<void> {
  // Written now: a report of the user still waiting to be written behind must not land after it.
  env.presenceWrites.discard(user.id);
  await putUserPresence(tx, { user_id: user.id, realm_id: env.realm.id, last_active_time: times.last_active_time, last_connected_time: times.last_connected_time });
  if (!opts.force && (!opts.announce || realmSettings(env.realm).presence_disabled)) return;
  // Those who may access the user are most of the active users: past the limit, skip listing them
  // (only a realm of mostly restricted guests could fall back under it).
  const limit = env.config.presenceEventUserLimit;
  if (!opts.force && (await activeUserIds(tx, env.realm.id)).length > limit) return;
  const recipients = await userIdsWhoCanAccess(tx, env.realm, user);
  if (!opts.force && recipients.length > limit) return;
  const shown = presenceTimes(times, user.date_joined);
  const email = apiEmail(user, emailDomain(env.config.externalUrl));
  env.emit(presenceEvent({ id: user.id, email }, env.clock.nowMs() / 1000, legacyPresenceEntry(shown), modernPresence(shown)), recipients);
}

/** This process's presence reports waiting to be written (the primitives that write a user's presence drop that user's). */
export type PresenceWrites = { presenceWrites: PresenceWriteBehind };

/** This process's batches of presence reports that announce nothing (close() it before the store). */
export function presenceWriteBehind(deps: Pick<ServerDeps, "store" | "config" | "log">): PresenceWriteBehind {
  return new PresenceWriteBehind(
    (rows) => withBackgroundTransaction(deps.store, (tx) => putUserPresences(tx, rows)),
    deps.config.presenceWriteDelayMs,
    (err, rows) => deps.log.error({ err, rows }, "presence reports could not be written; they wait for the next batch"),
  );
}

/** The user's latest report: one still waiting to be written, else the stored row. */
async function latestPresence(ctx: AuthedCtx, presenceWrites: PresenceWriteBehind, userId: number): Promise<Omit<UserPresenceRow, "last_update_id"> | undefined> {
  return presenceWrites.waiting(userId) ?? (await getUserPresence(ctx.db, ctx.realm.id, userId));
}

/**
 * Records a report of `user` at the clock's time. The latest row is read outside any transaction:
 * most repeated pings change nothing and end there. A change that announces the user is written
 * at once in one short transaction (on PostgreSQL one statement); the steady ping's, which
 * announces nothing, is written behind with other users' (store/users/presence-write-behind.ts). Two
 * clients of one user reporting at the same instant may both write (one sequence number more)
 * and both announce a first report: harmless, and cheaper than reading the row again under a
 * lock on every ping, as Zulip does.
 */
async function recordPresence(ctx: AuthedCtx, presenceWrites: PresenceWriteBehind, user: UserRow, status: PresenceStatus): Promise<void> {
  const change = presenceChange(await latestPresence(ctx, presenceWrites, user.id), status, nowSeconds(ctx.clock));
  if (change === null) return;
  const announce = change.creating || change.cameOnline;
  if (!announce && presenceWrites.delayMs > 0) {
    presenceWrites.put({ user_id: user.id, realm_id: ctx.realm.id, last_active_time: change.times.last_active_time, last_connected_time: change.times.last_connected_time });
    return;
  }
  await withTransaction(ctx, (tx, emit) => doPutPresence(tx, { presenceWrites, ...doEnv(ctx, emit) }, user, change.times, { announce, force: false }));
}

/**
 * The presence change that goes with turning the presence_enabled setting on or off (Zulip's
 * do_change_user_setting): on, the user is active now; off (invisible mode), the stored presence
 * is replaced by an idle one old enough that every client shows the user offline. Either way
 * everyone who may see the user is told at once. Call inside the setting change's transaction.
 */
export async function doUpdatePresenceEnabled(tx: Db, env: Pick<DoEnv, "realm" | "clock" | "config" | "emit"> & PresenceWrites, user: UserRow, enabled: boolean): Promise<void> {
  const now = nowSeconds(env.clock);
  const hidden = now - INVISIBLE_BACKDATE_SECONDS;
  // Zulip stores no activity time here and shows the join date; a user who joined minutes ago
  // would then look active, so the activity time is never later than the backdated connection.
  const times = enabled ? { last_active_time: now, last_connected_time: now } : { last_active_time: Math.min(user.date_joined, hidden), last_connected_time: hidden };
  await doPutPresence(tx, env, user, times, { announce: true, force: true });
}

/** POST /users/me/presence: records the caller's status (unless invisible) and, unless ping_only, answers the realm's presence. */
export async function updateOwnPresence(ctx: AuthedCtx, presenceWrites: PresenceWriteBehind, input: UpdatePresenceInput): Promise<Partial<RealmPresences> & { server_timestamp?: number }> {
  const { actor } = ctx;
  if (actor.is_bot === 1) throw new JsonableError("This endpoint does not accept bot requests.");
  if (input.status !== "active" && input.status !== "idle") throw new JsonableError(`Invalid status: ${input.status}`);
  // Invisible mode: a user who turned presence_enabled off reveals no activity.
  if (userSetting(actor, "presence_enabled") !== false) await recordPresence(ctx, presenceWrites, actor, input.status);
  // new_user_input feeds Zulip's usage statistics (UserActivityInterval), which Parley does not keep.
  if (input.ping_only) return {};
  // Passing last_update_id asks for the modern format (FL 263).
  const slim = input.last_update_id !== undefined || input.slim_presence;
  const query = { slim, lastUpdateId: input.last_update_id ?? null, historyLimitDays: input.history_limit_days ?? null };
  const serverTimestamp = ctx.clock.nowMs() / 1000;
  return { ...(await realmPresences(ctx, actor, query)), server_timestamp: serverTimestamp };
}

/** GET /realm/presence: every visible user's presence in the legacy format. */
export async function getRealmPresence(ctx: AuthedCtx): Promise<{ presences: Record<string, unknown>; server_timestamp: number }> {
  const serverTimestamp = ctx.clock.nowMs() / 1000;
  const { presences } = await realmPresences(ctx, ctx.actor, { slim: false, lastUpdateId: null, historyLimitDays: null });
  return { presences, server_timestamp: serverTimestamp };
}

/** GET /users/{user_id_or_email}/presence; `ref` is the path segment as sent (an id or an email). */
export async function getUserPresenceOf(ctx: AuthedCtx, ref: string, input: { slim_presence: boolean }): Promise<{ presence: SingleUserPresence | ModernPresence }> {
  const opts = { allowDeactivated: true, allowBots: true, forAdmin: false };
  const target = /^\d+$/.test(ref) ? await accessUserById(ctx, Number(ref), opts) : await accessUserByEmail(ctx, ref, opts);
  if (target.is_active !== 1) throw new JsonableError("No such user");
  if (target.is_bot === 1) throw new JsonableError("Presence is not supported for bot users.");
  const row = await getUserPresence(ctx.db, ctx.realm.id, target.id);
  if (!row) throw new JsonableError(`No presence data for ${ref}`);
  const times = presenceTimes(row, target.date_joined);
  return { presence: input.slim_presence ? modernPresence(times) : singleUserPresence(times, nowSeconds(ctx.clock)) };
}
