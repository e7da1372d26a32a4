/** Users' statuses and the presence_enabled setting that `away` mirrors. */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { UserRow, UserStatusTable } from "../schema/database.ts";
import { cachedRealmRows } from "../engine/read-cache.ts";

/** A stored status. */
type UserStatusRow = Selectable<UserStatusTable>;

/** A status change: absent keys keep their stored value. */
export type StatusPatch = Partial<Pick<UserStatusRow, "status_text" | "emoji_name" | "emoji_code" | "reaction_type">>;

/** Whether a user's presence_enabled personal setting is on (the default) in its settings JSON. */
export function presenceEnabled(user: Pick<UserRow, "settings">): boolean {
  const settings: unknown = JSON.parse(user.settings || "{}");
  return !(settings !== null && typeof settings === "object" && Reflect.get(settings, "presence_enabled") === false);
}

/** Stores presence_enabled in a user's settings JSON, keeping its other settings. */
export async function setPresenceEnabled(db: Db, realmId: number, userId: number, value: boolean): Promise<void> {
  const row = await db.selectFrom("users").select("settings").where("realm_id", "=", realmId).where("id", "=", userId).executeTakeFirstOrThrow();
  const parsed: unknown = JSON.parse(row.settings || "{}");
  const settings = parsed !== null && typeof parsed === "object" ? { ...parsed, presence_enabled: value } : { presence_enabled: value };
  await db.updateTable("users").set({ settings: JSON.stringify(settings) }).where("realm_id", "=", realmId).where("id", "=", userId).execute();
}

/** A user's stored status, if any. */
export function getUserStatus(db: Db, realmId: number, userId: number): Promise<UserStatusRow | undefined> {
  return db.selectFrom("user_status").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).executeTakeFirst();
}

/**
 * Creates or changes a user's status row; only the patch's keys change (Zulip keeps one row per
 * user). One upsert, so two first statuses set at once both succeed.
 */
export async function upsertUserStatus(db: Db, realmId: number, userId: number, patch: StatusPatch, timestamp: number): Promise<void> {
  const changed: StatusPatch & { timestamp: number } = { timestamp };
  if (patch.status_text !== undefined) changed.status_text = patch.status_text;
  if (patch.emoji_name !== undefined) changed.emoji_name = patch.emoji_name;
  if (patch.emoji_code !== undefined) changed.emoji_code = patch.emoji_code;
  if (patch.reaction_type !== undefined) changed.reaction_type = patch.reaction_type;
  await db
    .insertInto("user_status")
    .values({ realm_id: realmId, user_id: userId, status_text: "", emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji", ...changed })
    .onConflict((oc) => oc.column("user_id").doUpdateSet(changed))
    .execute();
}

/** A status with its user's settings (for `away`). */
type ShownStatusRow = UserStatusRow & { settings: string };

/**
 * Statuses of active users that have something to show (text, emoji, or away), with each
 * user's settings for `away` (Zulip's get_all_users_status_dict; every register reads them).
 */
export const listShownStatuses = cachedRealmRows<ShownStatusRow>(
  "shown statuses",
  ["user_status", "users"],
  (db, realmId): Promise<ShownStatusRow[]> =>
    db
      .selectFrom("user_status")
      .innerJoin("users", "users.id", "user_status.user_id")
      .selectAll("user_status")
      .select("users.settings")
      .where("user_status.realm_id", "=", realmId)
      .where("users.is_active", "=", 1)
      .orderBy("user_status.user_id")
      .execute(),
);
