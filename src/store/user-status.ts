/** Users' statuses and the presence_enabled setting that `away` mirrors. */
import type { Selectable } from "kysely";
import type { Db } from "./types.ts";
import type { UserRow, UserStatusTable } from "./schema.ts";

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

/** Creates or changes a user's status row; only the patch's keys change (Zulip keeps one row per user). */
export async function upsertUserStatus(db: Db, realmId: number, userId: number, patch: StatusPatch, timestamp: number): Promise<void> {
  const existing = await getUserStatus(db, realmId, userId);
  const row = {
    status_text: patch.status_text ?? existing?.status_text ?? "",
    emoji_name: patch.emoji_name ?? existing?.emoji_name ?? "",
    emoji_code: patch.emoji_code ?? existing?.emoji_code ?? "",
    reaction_type: patch.reaction_type ?? existing?.reaction_type ?? "unicode_emoji",
    timestamp,
  };
  if (existing) {
    await db.updateTable("user_status").set(row).where("realm_id", "=", realmId).where("user_id", "=", userId).execute();
    return;
  }
  await db.insertInto("user_status").values({ realm_id: realmId, user_id: userId, ...row }).execute();
}

/**
 * Statuses of active users that have something to show (text, emoji, or away), with each
 * user's settings for `away` (Zulip's get_all_users_status_dict).
 */
export function listShownStatuses(db: Db, realmId: number): Promise<Array<UserStatusRow & { settings: string }>> {
  return db
    .selectFrom("user_status")
    .innerJoin("users", "users.id", "user_status.user_id")
    .selectAll("user_status")
    .select("users.settings")
    .where("user_status.realm_id", "=", realmId)
    .where("users.is_active", "=", 1)
    .orderBy("user_status.user_id")
    .execute();
}
