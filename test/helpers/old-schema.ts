/**
 * Rows written as a store of an earlier schema holds them, for the tests of migrations that
 * change existing data. Typed loosely on purpose: the schema is not today's.
 */
import type { Kysely } from "kysely";

/** The channel permission columns as of 0003 (not null, no default). */
const STREAM_GROUP_COLUMNS = [
  "can_administer_channel_group_id", "can_send_message_group_id", "can_add_subscribers_group_id", "can_remove_subscribers_group_id",
  "can_subscribe_group_id", "can_delete_any_message_group_id", "can_delete_own_message_group_id",
  "can_move_messages_out_of_channel_group_id", "can_move_messages_within_channel_group_id", "can_resolve_topics_group_id",
];

/** A realm with one system group, as 0003's schema takes them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function oldRealm(db: Kysely<any>, stringId: string): Promise<{ realmId: number; groupId: number }> {
  const realm = await db.insertInto("realms").values({ string_id: stringId, name: stringId, date_created: 0 }).returning("id").executeTakeFirstOrThrow();
  const group = await db.insertInto("user_groups").values({ realm_id: realm.id, name: "role:everyone", is_system_group: 1 }).returning("id").executeTakeFirstOrThrow();
  return { realmId: realm.id, groupId: group.id };
}

/** A channel of `realm` with every permission given to its one group, as 0003's schema takes it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function oldStream(db: Kysely<any>, realm: { realmId: number; groupId: number }, name: string): Promise<number> {
  const groupSettings = Object.fromEntries(STREAM_GROUP_COLUMNS.map((c) => [c, realm.groupId]));
  const stream = await db.insertInto("streams").values({ realm_id: realm.realmId, name, date_created: 0, ...groupSettings }).returning("id").executeTakeFirstOrThrow();
  return stream.id;
}
