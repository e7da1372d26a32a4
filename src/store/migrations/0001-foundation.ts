/** Realms, users, bots' services, channels, subscriptions, user groups and custom profile fields. */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { timeType, withId } from "./helpers.ts";

const STREAM_GROUP_SETTINGS = [
  "can_administer_channel_group_id",
  "can_send_message_group_id",
  "can_add_subscribers_group_id",
  "can_remove_subscribers_group_id",
  "can_subscribe_group_id",
  "can_delete_any_message_group_id",
  "can_delete_own_message_group_id",
  "can_move_messages_out_of_channel_group_id",
  "can_move_messages_within_channel_group_id",
  "can_resolve_topics_group_id",
] as const;

const GROUP_GROUP_SETTINGS = [
  "can_add_members_group_id",
  "can_join_group_id",
  "can_leave_group_id",
  "can_manage_group_id",
  "can_mention_group_id",
  "can_remove_members_group_id",
] as const;

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const time = timeType(engine);
  await withId(db.schema.createTable("realms"), engine)
    .addColumn("string_id", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("date_created", time, (c) => c.notNull())
    .addColumn("deactivated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("settings", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();

  await withId(db.schema.createTable("users"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("delivery_email", "text", (c) => c.notNull())
    .addColumn("email_address_visibility", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("full_name", "text", (c) => c.notNull())
    .addColumn("role", "integer", (c) => c.notNull())
    .addColumn("is_active", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("is_bot", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("bot_type", "integer")
    .addColumn("bot_owner_id", "integer", (c) => c.references("users.id"))
    .addColumn("api_key", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text")
    .addColumn("date_joined", time, (c) => c.notNull())
    .addColumn("timezone", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("avatar_source", "text", (c) => c.notNull().defaultTo("G"))
    .addColumn("avatar_version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("is_billing_admin", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("settings", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
  await sql`create unique index users_realm_email on users (realm_id, lower(delivery_email))`.execute(db);

  await withId(db.schema.createTable("services"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("bot_user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("base_url", "text", (c) => c.notNull())
    .addColumn("token", "text", (c) => c.notNull())
    .addColumn("interface", "integer", (c) => c.notNull().defaultTo(1))
    .execute();

  let groups = withId(db.schema.createTable("user_groups"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text")
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("is_system_group", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("deactivated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("date_created", time)
    .addColumn("creator_id", "integer", (c) => c.references("users.id"));
  for (const col of GROUP_GROUP_SETTINGS) {
    groups = groups.addColumn(col, "integer", (c) => c.references("user_groups.id"));
  }
  await groups.execute();
  await sql`create unique index user_groups_realm_name on user_groups (realm_id, lower(name))`.execute(db);

  await db.schema
    .createTable("user_group_members")
    .addColumn("group_id", "integer", (c) => c.notNull().references("user_groups.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addPrimaryKeyConstraint("user_group_members_pk", ["group_id", "user_id"])
    .execute();
  await db.schema.createIndex("user_group_members_user").on("user_group_members").column("user_id").execute();

  await db.schema
    .createTable("user_group_subgroups")
    .addColumn("supergroup_id", "integer", (c) => c.notNull().references("user_groups.id"))
    .addColumn("subgroup_id", "integer", (c) => c.notNull().references("user_groups.id"))
    .addPrimaryKeyConstraint("user_group_subgroups_pk", ["supergroup_id", "subgroup_id"])
    .execute();
  await db.schema.createIndex("user_group_subgroups_sub").on("user_group_subgroups").column("subgroup_id").execute();

  let streams = withId(db.schema.createTable("streams"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("rendered_description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("invite_only", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("is_web_public", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("history_public_to_subscribers", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("message_retention_days", "integer")
    .addColumn("date_created", time, (c) => c.notNull())
    .addColumn("creator_id", "integer", (c) => c.references("users.id"))
    .addColumn("is_archived", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("first_message_id", "integer");
  for (const col of STREAM_GROUP_SETTINGS) {
    streams = streams.addColumn(col, "integer", (c) => c.notNull().references("user_groups.id"));
  }
  await streams.execute();
  await sql`create unique index streams_realm_name on streams (realm_id, lower(name))`.execute(db);

  await withId(db.schema.createTable("subscriptions"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("stream_id", "integer", (c) => c.notNull().references("streams.id"))
    .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("is_muted", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("color", "text", (c) => c.notNull())
    .addColumn("pin_to_top", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("desktop_notifications", "integer")
    .addColumn("audible_notifications", "integer")
    .addColumn("push_notifications", "integer")
    .addColumn("email_notifications", "integer")
    .addColumn("wildcard_mentions_notify", "integer")
    .addUniqueConstraint("subscriptions_user_stream", ["user_id", "stream_id"])
    .execute();
  await db.schema.createIndex("subscriptions_stream").on("subscriptions").columns(["stream_id", "active"]).execute();

  await withId(db.schema.createTable("custom_profile_fields"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("hint", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("field_type", "integer", (c) => c.notNull())
    .addColumn("field_data", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("order", "integer", (c) => c.notNull())
    .addColumn("display_in_profile_summary", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("required", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("editable_by_user", "integer", (c) => c.notNull().defaultTo(1))
    .execute();

  await db.schema
    .createTable("custom_profile_values")
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("field_id", "integer", (c) => c.notNull().references("custom_profile_fields.id"))
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("rendered_value", "text")
    .addPrimaryKeyConstraint("custom_profile_values_pk", ["user_id", "field_id"])
    .execute();
}

/** The first schema: everything the foundation issue needs. */
export function foundation(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}
