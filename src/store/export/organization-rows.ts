/**
 * The reads of an organization export (actions/export/): one organization's rows, table by
 * table, as stored. The tables that grow with the organization's people and channels are read
 * whole; what grows with its messages or uploads is read in chunks by id (message-chunks.ts,
 * attachmentsAfter).
 */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { Database } from "../schema/database.ts";
import { collectChunks, idChunks } from "../engine/chunks.ts";

/** The tables with an id and a realm_id that an export reads whole. */
export type RealmIdTable =
  | "users" | "services" | "streams" | "subscriptions" | "subscription_periods" | "user_groups" | "custom_profile_fields" | "recipients" | "direct_groups"
  | "linkifiers" | "realm_playgrounds" | "realm_emoji" | "realm_domains" | "default_streams" | "user_topics" | "alert_words" | "muted_users" | "saved_snippets"
  | "scheduled_messages";

/** Every row of the organization in `table`, by id. */
export function realmRows<T extends RealmIdTable>(db: Db, table: T, realmId: number): Promise<Array<Selectable<Database[T]>>> {
  // One query shape for every such table; Kysely cannot type a table chosen at run time.
  const query = (db as Db).selectFrom(table as "users").selectAll().where("realm_id", "=", realmId).orderBy("id");
  return query.execute() as unknown as Promise<Array<Selectable<Database[T]>>>;
}

/** The organization's row. */
export function realmRow(db: Db, realmId: number): Promise<Selectable<Database["realms"]> | undefined> {
  return db.selectFrom("realms").selectAll().where("id", "=", realmId).executeTakeFirst();
}

/** The store's organizations, by id (an export takes the only one). */
export function realmList(db: Db): Promise<Array<{ id: number; string_id: string; name: string }>> {
  return db.selectFrom("realms").select(["id", "string_id", "name"]).orderBy("id").execute();
}

/** Rows keyed by user without an id of their own. */
export function customProfileValues(db: Db, realmId: number): Promise<Array<Selectable<Database["custom_profile_values"]>>> {
  return db.selectFrom("custom_profile_values").selectAll().where("realm_id", "=", realmId).orderBy("user_id").orderBy("field_id").execute();
}

export function userStatuses(db: Db, realmId: number): Promise<Array<Selectable<Database["user_status"]>>> {
  return db.selectFrom("user_status").selectAll().where("realm_id", "=", realmId).orderBy("user_id").execute();
}

export function userPresences(db: Db, realmId: number): Promise<Array<Selectable<Database["user_presence"]>>> {
  return db.selectFrom("user_presence").selectAll().where("realm_id", "=", realmId).orderBy("user_id").execute();
}

export async function presenceSequence(db: Db, realmId: number): Promise<number> {
  const row = await db.selectFrom("presence_sequence").select("last_update_id").where("realm_id", "=", realmId).executeTakeFirst();
  return row?.last_update_id ?? 0;
}

export async function realmUserDefaults(db: Db, realmId: number): Promise<string | null> {
  const row = await db.selectFrom("realm_user_defaults").select("settings").where("realm_id", "=", realmId).executeTakeFirst();
  return row?.settings ?? null;
}

/** Direct members of the organization's user groups. */
export function groupMembers(db: Db, realmId: number): Promise<Array<{ group_id: number; user_id: number }>> {
  return db
    .selectFrom("user_group_members")
    .innerJoin("user_groups", "user_groups.id", "user_group_members.group_id")
    .select(["user_group_members.group_id", "user_group_members.user_id"])
    .where("user_groups.realm_id", "=", realmId)
    .orderBy("user_group_members.group_id")
    .orderBy("user_group_members.user_id")
    .execute();
}

/** Direct subgroups of the organization's user groups. */
export function groupSubgroups(db: Db, realmId: number): Promise<Array<{ supergroup_id: number; subgroup_id: number }>> {
  return db
    .selectFrom("user_group_subgroups")
    .innerJoin("user_groups", "user_groups.id", "user_group_subgroups.supergroup_id")
    .select(["user_group_subgroups.supergroup_id", "user_group_subgroups.subgroup_id"])
    .where("user_groups.realm_id", "=", realmId)
    .orderBy("user_group_subgroups.supergroup_id")
    .orderBy("user_group_subgroups.subgroup_id")
    .execute();
}

/** Members of the organization's direct-message conversations. */
export function directGroupMembers(db: Db, realmId: number): Promise<Array<{ group_id: number; user_id: number }>> {
  return db
    .selectFrom("direct_group_members")
    .innerJoin("direct_groups", "direct_groups.id", "direct_group_members.group_id")
    .select(["direct_group_members.group_id", "direct_group_members.user_id"])
    .where("direct_groups.realm_id", "=", realmId)
    .orderBy("direct_group_members.group_id")
    .orderBy("direct_group_members.user_id")
    .execute();
}

/** The sending clients' names that the organization's messages and scheduled messages name. */
export async function clientNames(db: Db, realmId: number): Promise<string[]> {
  const sent = await db.selectFrom("messages").select("sending_client").distinct().where("realm_id", "=", realmId).execute();
  const scheduled = await db.selectFrom("scheduled_messages").select("sending_client").distinct().where("realm_id", "=", realmId).execute();
  return [...new Set([...sent, ...scheduled].map((r) => r.sending_client))].sort();
}

/** Up to `limit` of the organization's uploads with an id above `afterId`, by id (an export reads them a chunk at a time). */
export function attachmentsAfter(db: Db, realmId: number, afterId: number, limit: number): Promise<Array<Selectable<Database["attachments"]>>> {
  return db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("id", ">", afterId).orderBy("id").limit(limit).execute();
}

/** Which messages the given uploads are linked from, by upload then message. */
export function attachmentMessages(db: Db, attachmentIds: readonly number[]): Promise<Array<{ attachment_id: number; message_id: number }>> {
  return collectChunks(idChunks([...attachmentIds]), (chunk) =>
    db.selectFrom("attachment_messages").select(["attachment_id", "message_id"]).where("attachment_id", "in", chunk).orderBy("attachment_id").orderBy("message_id").execute(),
  );
}
