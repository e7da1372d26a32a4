/** POST /register: parameters, validation, the initial state snapshot and unauthenticated access. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Kysely } from "kysely";
import { withDb as withStoreDb } from "../helpers/db.ts";
import type { Database } from "../../src/store/schema/database.ts";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { postRegister } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

type Group = Record<string, unknown> & { id: number; name: string; members: number[]; direct_subgroup_ids: number[] };

/** Keys every register response carries, whatever the client asked for. */
const ALWAYS = [
  "last_event_id", "max_message_length", "max_topic_length", "msg", "queue_id", "result", "service_feature_level",
  "service_version", "zulip_feature_level", "zulip_merge_base", "zulip_version",
];

/** Direct database access for set-up the API does not offer yet (realm settings, deactivated groups). */
async function withDb(server: TestServer, fn: (db: Kysely<Database>) => Promise<void>): Promise<void> {
  await withStoreDb(server, fn);
}

async function setRealmSetting(server: TestServer, key: string, value: unknown): Promise<void> {
  await withDb(server, async (db) => {
    const realm = await db.selectFrom("realms").select(["id", "settings"]).where("id", "=", server.fixtures.realmId).executeTakeFirstOrThrow();
    const settings = { ...JSON.parse(realm.settings), [key]: value };
    await db.updateTable("realms").set({ settings: JSON.stringify(settings) }).where("id", "=", realm.id).execute();
  });
}

describeEachStore("POST /register", (server) => {
  test("the default snapshot: versions, limits, realm settings, user settings and groups", async () => {
    const body = expectSuccess(await postRegister(server.api, server.fixtures.member));
    assert.equal(typeof body.queue_id, "string");
    assert.equal(body.last_event_id, -1);
    assert.equal(body.zulip_feature_level, 420);
    assert.equal(body.service_feature_level, 420);
    assert.equal(body.service_version, body.zulip_version);
    assert.equal(body.zulip_merge_base, body.zulip_version);
    assert.equal(body.max_message_length, 10000);
    assert.equal(body.max_topic_length, 60);
    assert.equal(body.max_stream_name_length, 60);
    assert.equal(body.max_stream_description_length, 1024);
    assert.equal(body.realm_empty_topic_display_name, "general chat");
    assert.equal(body.realm_name, "Test Org");
    assert.equal(body.realm_url, server.url);
    assert.equal(body.realm_uri, server.url);
    assert.equal(body.realm_enable_spectator_access, false);
    assert.equal(body.realm_moderation_request_channel_id, -1);
    assert.equal(body.realm_message_content_edit_limit_seconds, 600);
    assert.equal(body.realm_waiting_period_threshold, 0);
    assert.equal(body.realm_mandatory_topics, false);
    assert.equal(body.event_queue_longpoll_timeout_seconds, 90);
    assert.equal(body.server_presence_ping_interval_seconds, 60);
    assert.equal(body.realm_wildcard_mention_policy, 5);
    assert.equal(body.user_settings.emojiset, "google");
    assert.equal(body.user_settings.default_language, "en");
    assert.equal(body.user_settings.email_address_visibility, 1);
    assert.equal("dense_mode" in body.user_settings, false);
    // Without user_settings_object, the legacy top-level copies (pre-FL 89 clients).
    assert.equal(body.enable_sounds, true);
    assert.equal(body.twenty_four_hour_time, false);
    assert.deepEqual(body.emojiset_choices, body.user_settings.emojiset_choices);
    assert.equal(body.realm_user_settings_defaults.enable_sounds, true);
    assert.equal("timezone" in body.realm_user_settings_defaults, false);
    // Features with no data yet report their empty state.
    assert.deepEqual(body.realm_emoji, {});
    assert.deepEqual(body.unread_msgs, { count: 0, pms: [], streams: [], huddles: [], mentions: [], old_unreads_missing: false });
    assert.deepEqual(body.custom_profile_fields, []);
    assert.equal(body.custom_profile_field_types.PRONOUNS.id, 8);
  });

  test("realm permission settings are group-setting values naming the system groups", async () => {
    const body = expectSuccess(await postRegister(server.api, server.fixtures.owner));
    const byName = new Map<string, Group>(body.realm_user_groups.map((g: Group) => [g.name, g]));
    const id = (name: string) => byName.get(name)?.id;
    assert.equal(body.realm_can_create_public_channel_group, id("role:members"));
    assert.equal(body.realm_can_delete_any_message_group, id("role:administrators"));
    assert.equal(body.realm_can_mention_many_users_group, id("role:administrators"));
    assert.equal(body.realm_can_access_all_users_group, id("role:everyone"));
    assert.equal(body.realm_can_create_web_public_channel_group, id("role:owners"));
    assert.equal(body.realm_direct_message_permission_group, id("role:everyone"));
  });

  test("realm_user_groups: the system groups with members, nesting and permissions", async () => {
    const { owner, admin, moderator, member, guest, bot } = server.fixtures;
    const body = expectSuccess(await postRegister(server.api, member, { fetch_event_types: ["realm_user_groups"] }));
    const groups: Group[] = body.realm_user_groups;
    const byName = new Map(groups.map((g) => [g.name, g]));
    assert.deepEqual([...byName.keys()].sort(), [
      "role:administrators", "role:everyone", "role:fullmembers", "role:internet", "role:members", "role:moderators", "role:nobody", "role:owners",
    ]);
    const get = (name: string) => byName.get(name) as Group;
    assert.deepEqual(get("role:owners").members, [owner.id]);
    assert.deepEqual(get("role:administrators").members, [admin.id]);
    assert.deepEqual(get("role:moderators").members, [moderator.id]);
    assert.deepEqual(get("role:members").members, [member.id, bot.id]);
    assert.deepEqual(get("role:everyone").members, [guest.id]);
    assert.deepEqual(get("role:nobody").members, []);
    assert.deepEqual(get("role:administrators").direct_subgroup_ids, [get("role:owners").id]);
    assert.deepEqual(get("role:everyone").direct_subgroup_ids, [get("role:members").id]);
    const nobody = get("role:nobody").id;
    assert.deepEqual(get("role:owners"), {
      id: get("role:owners").id,
      name: "role:owners",
      description: "Owners of this organization",
      date_created: null,
      creator_id: null,
      members: [owner.id],
      direct_subgroup_ids: [],
      is_system_group: true,
      deactivated: false,
      can_add_members_group: nobody,
      can_join_group: nobody,
      can_leave_group: nobody,
      can_manage_group: nobody,
      can_mention_group: get("role:everyone").id,
      can_remove_members_group: nobody,
    });
  });

  test("include_deactivated_groups: deactivated groups only for clients that declare it", async () => {
    let groupId = 0;
    await withDb(server, async (db) => {
      const nobody = await db.selectFrom("user_groups").select("id").where("realm_id", "=", server.fixtures.realmId).where("name", "=", "role:nobody").executeTakeFirstOrThrow();
      const row = await db
        .insertInto("user_groups")
        .values({
          realm_id: server.fixtures.realmId, name: "retired", description: "old team", is_system_group: 0, deactivated: 1,
          date_created: 1700000000, creator_id: server.fixtures.admin.id, can_add_members_group_id: nobody.id, can_join_group_id: nobody.id,
          can_leave_group_id: nobody.id, can_manage_group_id: nobody.id, can_mention_group_id: nobody.id, can_remove_members_group_id: nobody.id,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      groupId = row.id;
      await db.insertInto("user_group_members").values({ group_id: row.id, user_id: server.fixtures.member.id }).execute();
    });
    const plain = expectSuccess(await postRegister(server.api, server.fixtures.member, { fetch_event_types: ["realm_user_groups"] }));
    assert.equal(plain.realm_user_groups.some((g: Group) => g.id === groupId), false);
    const capable = expectSuccess(await postRegister(server.api, server.fixtures.member, {
      fetch_event_types: ["realm_user_groups"],
      client_capabilities: { notification_settings_null: true, include_deactivated_groups: true },
    }));
    const retired = capable.realm_user_groups.find((g: Group) => g.id === groupId);
    assert.equal(retired.deactivated, true);
    assert.equal(retired.date_created, 1700000000);
    assert.equal(retired.creator_id, server.fixtures.admin.id);
    assert.deepEqual(retired.members, [server.fixtures.member.id]);
  });

  test("event_types and fetch_event_types choose the state returned; unknown types are ignored", async () => {
    const { member } = server.fixtures;
    const keys = async (params: Record<string, unknown>) => Object.keys(expectSuccess(await postRegister(server.api, member, params))).sort();
    assert.deepEqual(await keys({ fetch_event_types: [] }), ALWAYS);
    assert.deepEqual(await keys({ event_types: ["no_such_type"] }), ALWAYS);
    assert.deepEqual(await keys({ event_types: ["realm_user_groups"] }), [...ALWAYS, "realm_user_groups"].sort());
    // fetch_event_types decides the state; event_types only what the queue receives.
    assert.deepEqual(await keys({ event_types: ["realm"], fetch_event_types: ["alert_words"] }), [...ALWAYS, "alert_words"].sort());
    const realm = await keys({ event_types: ["realm"] });
    assert.ok(realm.includes("realm_name") && realm.includes("realm_can_create_groups") && !realm.includes("user_settings"));
  });

  test("user_settings_object drops the legacy top-level settings; linkifier_url_template keeps linkifiers", async () => {
    const { member } = server.fixtures;
    const modern = expectSuccess(await postRegister(server.api, member, {
      client_capabilities: { notification_settings_null: true, user_settings_object: true, linkifier_url_template: true },
    }));
    assert.equal("enable_sounds" in modern, false);
    assert.equal("emojiset" in modern, false);
    assert.equal(modern.user_settings.enable_sounds, true);
    assert.deepEqual(modern.realm_linkifiers, []);
    const legacy = expectSuccess(await postRegister(server.api, member, { fetch_event_types: ["update_display_settings", "update_global_notifications", "realm_linkifiers"] }));
    assert.equal(legacy.emojiset, "google");
    assert.equal(legacy.enable_sounds, true);
    assert.equal("user_settings" in legacy, false);
    assert.deepEqual(legacy.realm_linkifiers, []);
  });

  test("every parameter is accepted with multipart encoding (zulip-js) and unknown ones are listed", async () => {
    const params = {
      apply_markdown: true,
      client_gravatar: false,
      include_subscribers: "partial",
      slim_presence: true,
      presence_history_limit_days: 365,
      event_types: ["message", "heartbeat"],
      fetch_event_types: ["realm"],
      all_public_streams: true,
      narrow: [["stream", "general"], ["is", "dm"]],
      client_capabilities: { notification_settings_null: true, bulk_message_deletion: true, future_capability: true },
      queue_lifespan_secs: 120,
      bogus: 1,
    };
    const res = await postRegister(server.api, server.fixtures.member, params, { encoding: "multipart" });
    const body = expectSuccess(res);
    assert.deepEqual(body.ignored_parameters_unsupported, ["bogus"]);
    assert.equal(typeof body.queue_id, "string");
    expectSuccess(await postRegister(server.api, server.fixtures.member, { client_gravatar: null, include_subscribers: "true" }));
  });

  test("malformed parameters get Zulip's errors", async () => {
    const { member } = server.fixtures;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ apply_markdown: "5" }, "apply_markdown is not a boolean"],
      [{ client_gravatar: 5 }, "client_gravatar is not a boolean"],
      [{ include_subscribers: "maybe" }, "Invalid include_subscribers"],
      [{ presence_history_limit_days: "abc" }, "presence_history_limit_days is not an integer"],
      [{ event_types: "message" }, "event_types is not valid JSON"],
      [{ event_types: { a: 1 } }, "event_types is not a list"],
      [{ fetch_event_types: [1] }, "fetch_event_types[0] is not a string"],
      [{ narrow: [["stream"]] }, "narrow[0] is too short"],
      [{ narrow: [["stream", "a", "b"]] }, "narrow[0] is too long"],
      [{ narrow: [["search", "x"]] }, "Operator search not supported."],
      [{ client_capabilities: [] }, "client_capabilities is not a dict"],
      [{ client_capabilities: { notification_settings_null: "yes" } }, 'client_capabilities["notification_settings_null"] is not a boolean'],
      // notification_settings_null is required whenever client_capabilities is sent (as upstream).
      [{ client_capabilities: { bulk_message_deletion: true } }, 'client_capabilities["notification_settings_null"] field is missing'],
      [{ queue_lifespan_secs: -1 }, "queue_lifespan_secs is too small"],
    ];
    for (const [params, msg] of cases) expectError(await postRegister(server.api, member, params), "BAD_REQUEST", msg);
  });

  test("guests may not ask for all public channels", async () => {
    expectError(await postRegister(server.api, server.fixtures.guest, { all_public_streams: true }), "BAD_REQUEST", "User not authorized for this query");
    expectSuccess(await postRegister(server.api, server.fixtures.guest, { all_public_streams: false }));
  });

  test("bad credentials are refused even though register allows public access", async () => {
    const wrong = { email: server.fixtures.member.email, apiKey: "wrong" };
    expectError(await postRegister(server.api, wrong), "UNAUTHORIZED", "Invalid API key", 401);
  });

  test("unauthenticated: 401 without public access; with it, a snapshot without a queue", async () => {
    expectError(await postRegister(server.api, null), "UNAUTHORIZED", NO_AUTH, 401);
    await setRealmSetting(server, "enable_spectator_access", true);
    try {
      const body = expectSuccess(await postRegister(server.api, null));
      assert.equal(body.queue_id, null);
      assert.equal(body.last_event_id, -1);
      assert.equal(body.realm_enable_spectator_access, true);
      assert.equal(body.user_settings.timezone, "");
      assert.equal(body.zulip_feature_level, 420);
      expectSuccess(await postRegister(server.api, null, { client_gravatar: false, include_subscribers: "false" }));
      expectError(await postRegister(server.api, null, { client_gravatar: true }), "BAD_REQUEST", "Invalid 'client_gravatar' parameter for anonymous request");
      expectError(await postRegister(server.api, null, { include_subscribers: true }), "BAD_REQUEST", "Invalid 'include_subscribers' parameter for anonymous request");
      expectError(await postRegister(server.api, null, { include_subscribers: "partial" }), "BAD_REQUEST", "Invalid 'include_subscribers' parameter for anonymous request");
    } finally {
      await setRealmSetting(server, "enable_spectator_access", false);
    }
  });
});
