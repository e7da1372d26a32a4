/**
 * The realm's presence data as one user may see it (Zulip's get_presences_for_realm), shared by
 * the register snapshot (`presences`, `presence_last_update_id`) and POST /users/me/presence.
 */
import { nowSeconds, type Clock } from "../clock.ts";
import type { Caller } from "../permissions/caller.ts";
import { isGuest } from "../permissions/check.ts";
import { realmSettings } from "../permissions/realm-settings.ts";
import { inaccessibleUserIds } from "../permissions/user-access.ts";
import { legacyUserPresence, modernPresence, presenceTimes, PRESENCE_HISTORY_DEFAULT_DAYS } from "../present/presence.ts";
import { apiEmail, emailDomain } from "../model/emails.ts";
import { listRealmPresences, type PresenceWithUser } from "../store/users/presence.ts";
import type { UserRow } from "../store/schema/database.ts";
import { listUsers } from "../store/users/users.ts";
import type { StateProvider } from "./provider.ts";

const SECONDS_PER_DAY = 86_400;

/** What a presence fetch asks for (POST /users/me/presence's parameters, or the queue's options). */
export type PresenceQuery = {
  /** Modern format keyed by user id; else legacy keyed by API email. */
  slim: boolean;
  /** The client's last_update_id: only rows changed after it; null for all. */
  lastUpdateId: number | null;
  /** How many days back to look when fetching from scratch; null for the default. */
  historyLimitDays: number | null;
};

/** Presence entries keyed by user id (modern) or API email (legacy), and the last sequence number they hold. */
export type RealmPresences = { presences: Record<string, unknown>; presence_last_update_id: number };

/** The rows a guest without access to everyone may not see dropped (Zulip with CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE). */
async function visibleRows(ctx: Caller, viewer: UserRow, rows: PresenceWithUser[]): Promise<PresenceWithUser[]> {
  if (!isGuest(viewer) || rows.length === 0) return rows;
  const hidden = await inaccessibleUserIds(ctx.db, ctx.realm, viewer, await listUsers(ctx.db, ctx.realm.id));
  return rows.filter((r) => !hidden.has(r.user_id));
}

/** The realm's presence data `viewer` may see, in the asked format; empty when the realm disabled presence. */
export async function realmPresences(ctx: Caller & { clock: Clock }, viewer: UserRow, query: PresenceQuery): Promise<RealmPresences> {
  if (realmSettings(ctx.realm).presence_disabled) return { presences: {}, presence_last_update_id: -1 };
  const { lastUpdateId, historyLimitDays } = query;
  // A client holding data (a positive last_update_id) gets every later change, however old.
  const fromScratch = lastUpdateId === null || lastUpdateId <= 0;
  const days = historyLimitDays ?? PRESENCE_HISTORY_DEFAULT_DAYS;
  const rows =
    historyLimitDays === 0
      ? []
      : await listRealmPresences(ctx.db, ctx.realm.id, {
          afterUpdateId: lastUpdateId,
          connectedSince: fromScratch ? nowSeconds(ctx.clock) - days * SECONDS_PER_DAY : null,
        });
  const shown = await visibleRows(ctx, viewer, rows);
  const host = emailDomain(ctx.config.externalUrl);
  const presences: Record<string, unknown> = {};
  let last = -1;
  for (const row of shown) {
    const times = presenceTimes(row, row.date_joined);
    if (query.slim) presences[String(row.user_id)] = modernPresence(times);
    else presences[apiEmail({ id: row.user_id, delivery_email: row.delivery_email, email_address_visibility: row.email_address_visibility }, host)] = legacyUserPresence(times);
    last = Math.max(last, row.last_update_id);
  }
  // No rows: the client's own number stands (nothing new since), or -1 when it gave none.
  return { presences, presence_last_update_id: shown.length > 0 ? last : (lastUpdateId ?? -1) };
}

/** `presences`, `presence_last_update_id` and `server_timestamp` (modern with slim_presence or simplified_presence_events). */
export const presenceState: StateProvider = {
  async fetch(ctx, opts, want) {
    if (!want("presence")) return {};
    const serverTimestamp = ctx.clock.nowMs() / 1000;
    // Spectators see no one's presence (and get no sequence number), as in Zulip.
    if (ctx.actor === null) return { presences: {}, server_timestamp: serverTimestamp };
    const slim = opts.slim_presence || opts.capabilities.simplified_presence_events;
    const data = await realmPresences(ctx, ctx.actor, { slim, lastUpdateId: null, historyLimitDays: opts.presence_history_limit_days });
    return { ...data, server_timestamp: serverTimestamp };
  },
};
