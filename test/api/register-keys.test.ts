/**
 * The register snapshot against the FL 372 description of POST /register (every documented key
 * present, the values of the keys added for clients), `event_types=null` meaning all events, and
 * the `realm_user` events of a deactivation (`update` to those who keep access, `remove` to
 * guests who lose it).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import YAML from "yaml";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { groupId, setRealmSettings } from "../helpers/db.ts";
import { pollEvents, postRegister, registerQueue, withoutIds } from "../helpers/events.ts";
import { createUser } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";

const FL372_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/zulip-openapi-fl372.yaml");

/**
 * Documented keys this server leaves out, each as upstream does: ignored_parameters_unsupported
 * only when a parameter was ignored; demo_organization_scheduled_deletion_date only for demo
 * organizations; receives_typing_notifications is documented at the top level but upstream sends
 * it only in user_settings (it is not one of the legacy display settings).
 */
const ABSENT_AS_UPSTREAM = ["ignored_parameters_unsupported", "demo_organization_scheduled_deletion_date", "receives_typing_notifications"];

type Property = { deprecated?: boolean };

/** The FL 372 description's POST /register response properties. */
function registerProperties(): Record<string, Property> {
  type Node = { allOf?: Node[]; properties?: Record<string, Property> };
  const doc = YAML.parse(fs.readFileSync(FL372_FILE, "utf8"), { maxAliasCount: -1 }) as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: Node }> }> }>> };
  const out: Record<string, Property> = {};
  const walk = (node: Node): void => {
    for (const part of node.allOf ?? []) walk(part);
    Object.assign(out, node.properties ?? {});
  };
  walk(doc.paths["/register"].post.responses["200"].content["application/json"].schema);
  return out;
}

describeEachStore("register keys", (server) => {
  test("every key the FL 372 description documents is present, but those upstream also leaves out", async () => {
    const properties = registerProperties();
    const modern = (await registerQueue(server.api, server.fixtures.member, { client_capabilities: { notification_settings_null: true, user_settings_object: true } })).state;
    const legacy = (await registerQueue(server.api, server.fixtures.member)).state;
    const missing = Object.entries(properties)
      .filter(([key, prop]) => !(key in modern) && !(prop.deprecated === true && key in legacy))
      .map(([key]) => key);
    assert.deepEqual(missing.sort(), [...ABSENT_AS_UPSTREAM].sort());
    // Removed upstream at FL 341/344 in favour of can_add_subscribers_group and can_create_bots_group.
    assert.equal("realm_invite_to_stream_policy" in modern, false);
    assert.equal("realm_bot_creation_policy" in modern, false);
  });

  test("the added keys' values", async () => {
    const state = (await registerQueue(server.api, server.fixtures.member)).state;
    assert.deepEqual(
      {
        password_max_length: state.password_max_length,
        server_can_summarize_topics: state.server_can_summarize_topics,
        realm_enable_guest_user_dm_warning: state.realm_enable_guest_user_dm_warning,
        server_min_deactivated_realm_deletion_days: state.server_min_deactivated_realm_deletion_days,
        server_max_deactivated_realm_deletion_days: state.server_max_deactivated_realm_deletion_days,
        navigation_tour_video_url: state.navigation_tour_video_url,
        realm_billing: state.realm_billing,
        realm_create_public_stream_policy: state.realm_create_public_stream_policy,
        realm_create_private_stream_policy: state.realm_create_private_stream_policy,
        realm_create_web_public_stream_policy: state.realm_create_web_public_stream_policy,
        realm_wildcard_mention_policy: state.realm_wildcard_mention_policy,
        server_typing_started_expiry_period_milliseconds: state.server_typing_started_expiry_period_milliseconds,
        server_typing_stopped_wait_period_milliseconds: state.server_typing_stopped_wait_period_milliseconds,
        server_typing_started_wait_period_milliseconds: state.server_typing_started_wait_period_milliseconds,
      },
      {
        password_max_length: 100,
        server_can_summarize_topics: false,
        realm_enable_guest_user_dm_warning: true,
        server_min_deactivated_realm_deletion_days: 14,
        server_max_deactivated_realm_deletion_days: null,
        navigation_tour_video_url: null,
        realm_billing: { has_pending_sponsorship_request: false },
        realm_create_public_stream_policy: 1,
        realm_create_private_stream_policy: 1,
        realm_create_web_public_stream_policy: 7,
        realm_wildcard_mention_policy: 5,
        server_typing_started_expiry_period_milliseconds: 45000,
        server_typing_stopped_wait_period_milliseconds: 12000,
        server_typing_started_wait_period_milliseconds: 30000,
      },
    );
    assert.equal((state.user_settings as Record<string, unknown>).receives_typing_notifications, true);
    assert.equal((state.realm_user_settings_defaults as Record<string, unknown>).receives_typing_notifications, true);
  });

  test("the deprecated policy enums follow their group settings (Zulip's nearest value otherwise)", async () => {
    await setRealmSettings(server, {
      can_create_public_channel_group: await groupId(server, "role:moderators"),
      can_create_web_public_channel_group: await groupId(server, "role:nobody"),
      can_mention_many_users_group: await groupId(server, "role:owners"),
    });
    try {
      const state = (await registerQueue(server.api, server.fixtures.member, { fetch_event_types: ["realm"] })).state;
      assert.deepEqual([state.realm_create_public_stream_policy, state.realm_create_web_public_stream_policy, state.realm_wildcard_mention_policy], [4, 6, 1]);
    } finally {
      await setRealmSettings(server, {
        can_create_public_channel_group: await groupId(server, "role:members"),
        can_create_web_public_channel_group: await groupId(server, "role:owners"),
        can_mention_many_users_group: await groupId(server, "role:administrators"),
      });
    }
  });

  test("server_supported_permission_settings describes realm, channel and group settings", async () => {
    const state = (await registerQueue(server.api, server.fixtures.member, { fetch_event_types: ["realm"] })).state;
    type Info = Record<string, unknown>;
    const settings = state.server_supported_permission_settings as { realm: Record<string, Info>; stream: Record<string, Info>; group: Record<string, Info> };
    assert.deepEqual(settings.realm.can_access_all_users_group, {
      require_system_group: true,
      allow_internet_group: false,
      allow_nobody_group: false,
      allow_everyone_group: true,
      default_group_name: "role:everyone",
      default_for_system_groups: null,
      allowed_system_groups: ["role:everyone", "role:members"],
    });
    assert.deepEqual(settings.realm.can_delete_any_message_group, {
      require_system_group: false,
      allow_internet_group: false,
      allow_nobody_group: true,
      allow_everyone_group: false,
      default_group_name: "role:administrators",
      default_for_system_groups: null,
      allowed_system_groups: [],
    });
    for (const name of Object.keys(settings.realm)) assert.ok(`realm_${name}` in state, `realm_${name} is a realm setting`);
    assert.equal(Object.keys(settings.realm).length, 24);
    assert.deepEqual([settings.stream.can_administer_channel_group.default_group_name, settings.stream.can_send_message_group.allow_everyone_group], ["stream_creator_or_nobody", true]);
    assert.deepEqual([settings.stream.can_subscribe_group.allow_everyone_group, settings.stream.can_subscribe_group.allow_nobody_group], [false, true]);
    assert.deepEqual(settings.group.can_manage_group, {
      require_system_group: false,
      allow_internet_group: false,
      allow_nobody_group: true,
      allow_everyone_group: false,
      default_group_name: "group_creator",
      default_for_system_groups: "role:nobody",
      allowed_system_groups: [],
    });
    assert.equal(settings.group.can_leave_group.allow_everyone_group, true);
    assert.equal(Object.keys(settings.group).length, 6);
  });

  test("event_types, fetch_event_types and narrow may be null: all events, the whole snapshot", async () => {
    const { member, owner } = server.fixtures;
    const body = expectSuccess(await postRegister(server.api, member, { event_types: "null", fetch_event_types: "null", narrow: "null" }));
    assert.equal(typeof body.queue_id, "string");
    for (const key of ["realm_users", "subscriptions", "user_settings", "realm_name", "unread_msgs"]) assert.ok(key in body, key);
    // zulip-js sends the null in a multipart body.
    const multipart = expectSuccess(await postRegister(server.api, member, { event_types: null }, { encoding: "multipart" }));
    const queue = { queueId: multipart.queue_id as string, lastEventId: -1, state: multipart, user: member };
    expectSuccess(await server.api.post(owner, "/typing", { op: "start", to: [member.id] }));
    expectSuccess(await server.api.post(owner, "/messages", { type: "direct", to: JSON.stringify([member.id]), content: "hello" }));
    const types = (await pollEvents(server.api, queue)).map((e) => e.type);
    assert.deepEqual(types, ["typing", "message"], "all events reach a null event_types queue");
    expectError(await postRegister(server.api, member, { event_types: "[1]" }), "BAD_REQUEST", "event_types[0] is not a string");
  });

  test("deactivation: realm_user update to those who keep access, remove to guests who lose it", async () => {
    const { owner, guest, member } = server.fixtures;
    const leaving = await createUser(server, { name: "Leaving Soon" });
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "porch" }], principals: [owner.id, guest.id, leaving.id] }));
    await setRealmSettings(server, { can_access_all_users_group: await groupId(server, "role:members") });
    try {
      const [ownerQ, guestQ, memberQ] = await Promise.all([owner, guest, member].map((u) => registerQueue(server.api, u, { event_types: ["realm_user"] })));
      expectSuccess(await server.api.delete(owner, `/users/${leaving.id}`));
      const update = { type: "realm_user", op: "update", person: { user_id: leaving.id, is_active: false } };
      assert.deepEqual(withoutIds(await pollEvents(server.api, ownerQ)), [update]);
      assert.deepEqual(withoutIds(await pollEvents(server.api, memberQ)), [update]);
      assert.deepEqual(withoutIds(await pollEvents(server.api, guestQ)), [{ type: "realm_user", op: "remove", person: { user_id: leaving.id, full_name: "Unknown user" } }]);
      // Reactivation reaches only those who can access the user again.
      expectSuccess(await server.api.post(owner, `/users/${leaving.id}/reactivate`));
      assert.deepEqual(withoutIds(await pollEvents(server.api, ownerQ)), [{ ...update, person: { user_id: leaving.id, is_active: true } }]);
    } finally {
      await setRealmSettings(server, { can_access_all_users_group: await groupId(server, "role:everyone") });
    }
    // Without the restriction everyone keeps access: updates only.
    const guestQ = await registerQueue(server.api, guest, { event_types: ["realm_user"] });
    expectSuccess(await server.api.delete(owner, `/users/${leaving.id}`));
    assert.deepEqual(withoutIds(await pollEvents(server.api, guestQ)), [{ type: "realm_user", op: "update", person: { user_id: leaving.id, is_active: false } }]);
  });
});
