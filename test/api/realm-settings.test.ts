/**
 * PATCH /realm: organization settings by role, Zulip's `realm` update / update_dict events to
 * every user, permission settings as group-setting values, and the next register snapshot.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { groupId, withDb } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import { createUser } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN, NOT_OWNER } from "../helpers/errors.ts";

describeEachStore("PATCH /realm", (server) => {
  const patch = (user: Credentials | null, params: Record<string, unknown>) => server.api.patch(user, "/realm", params);
  async function snapshot(user: Credentials = server.fixtures.member): Promise<Record<string, unknown>> {
    return (await registerQueue(server.api, user, { fetch_event_types: ["realm"] })).state;
  }
  const realmKeys = (state: Record<string, unknown>) => Object.fromEntries(Object.entries(state).filter(([key]) => key.startsWith("realm_")));
  const watch = (user: Credentials = server.fixtures.guest): Promise<Queue> => registerQueue(server.api, user, { event_types: ["realm", "user_group"] });
  const anonymousGroups = () =>
    withDb(server, async (db) => (await db.selectFrom("user_groups").select("id").where("name", "is", null).execute()).length);
  async function channel(name: string, inviteOnly: boolean): Promise<number> {
    expectSuccess(await server.api.post(server.fixtures.admin, "/users/me/subscriptions", { subscriptions: [{ name }], invite_only: inviteOnly }));
    return expectSuccess(await server.api.get(server.fixtures.admin, "/get_stream_id", { stream: name })).stream_id;
  }

  test("plain settings: update events (some in update_dict), the response lists changes, the snapshot follows", async () => {
    const { admin } = server.fixtures;
    const queue = await watch();
    const body = expectSuccess(
      await patch(admin, { name: "Renamed Org", description: "All about us", allow_message_editing: false, inline_image_preview: false, giphy_rating: 4, video_chat_provider: 0 }),
    );
    const { result: _r, msg: _m, ...data } = body;
    assert.deepEqual(data, { description: "updated", name: "updated", allow_message_editing: false, giphy_rating: 4, inline_image_preview: false, video_chat_provider: 0 });
    expectSuccess(await patch(admin, { name: "Renamed Org", inline_image_preview: false }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "realm", op: "update_dict", property: "default", data: { allow_message_editing: false } },
      { type: "realm", op: "update", property: "description", value: "All about us" },
      { type: "realm", op: "update", property: "giphy_rating", value: 4 },
      { type: "realm", op: "update", property: "inline_image_preview", value: false },
      { type: "realm", op: "update", property: "name", value: "Renamed Org" },
      { type: "realm", op: "update", property: "video_chat_provider", value: 0 },
    ]);
    const state = await snapshot();
    assert.deepEqual(
      [state.realm_name, state.realm_description, state.realm_allow_message_editing, state.realm_inline_image_preview, state.realm_giphy_rating, state.realm_video_chat_provider],
      ["Renamed Org", "All about us", false, false, 4, 0],
    );
    expectSuccess(await patch(admin, { name: "Test Org", description: "", allow_message_editing: true, inline_image_preview: true, giphy_rating: 2, video_chat_provider: 1 }));
  });

  test("time limits, topics policy and edit history: Zulip's special values and coupled settings", async () => {
    const { admin } = server.fixtures;
    const queue = await watch();
    expectSuccess(await patch(admin, { message_content_edit_limit_seconds: '"unlimited"', message_content_delete_limit_seconds: 3600, move_messages_within_stream_limit_seconds: "unlimited" }));
    expectSuccess(await patch(admin, { topics_policy: "disable_empty_topic", message_edit_history_visibility_policy: "none", default_language: "de" }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "realm", op: "update", property: "message_content_delete_limit_seconds", value: 3600 },
      { type: "realm", op: "update_dict", property: "default", data: { message_content_edit_limit_seconds: null } },
      { type: "realm", op: "update", property: "move_messages_within_stream_limit_seconds", value: null },
      { type: "realm", op: "update", property: "default_language", value: "de" },
      { type: "realm", op: "update", property: "message_edit_history_visibility_policy", value: "none" },
      { type: "realm", op: "update_dict", property: "default", data: { topics_policy: "disable_empty_topic", mandatory_topics: true } },
    ]);
    const state = await snapshot();
    assert.equal(state.realm_message_content_edit_limit_seconds, null);
    assert.equal(state.realm_message_content_delete_limit_seconds, 3600);
    assert.equal(state.realm_move_messages_within_stream_limit_seconds, null);
    assert.deepEqual([state.realm_topics_policy, state.realm_mandatory_topics], ["disable_empty_topic", true]);
    assert.deepEqual([state.realm_message_edit_history_visibility_policy, state.realm_allow_edit_history], ["none", false]);
    assert.equal(state.realm_default_language, "de");
    // A user created now starts in the realm's language.
    const account = await createUser(server);
    const settings = (await registerQueue(server.api, account, { fetch_event_types: ["user_settings"] })).state.user_settings as Record<string, unknown>;
    assert.equal(settings.default_language, "de");
    expectSuccess(await patch(admin, {
      message_content_edit_limit_seconds: 600, message_content_delete_limit_seconds: '"unlimited"', move_messages_within_stream_limit_seconds: 604800,
      topics_policy: "allow_empty_topic", message_edit_history_visibility_policy: "all", default_language: "en",
    }));
    const reset = await snapshot();
    assert.deepEqual([reset.realm_mandatory_topics, reset.realm_allow_edit_history, reset.realm_message_content_delete_limit_seconds], [false, true, null]);
  });

  test("permission settings: group-setting values, old checked, each setting's rule", async () => {
    const { admin, member } = server.fixtures;
    const moderators = await groupId(server, "role:moderators");
    const admins = await groupId(server, "role:administrators");
    const anonymousBefore = await anonymousGroups();
    const queue = await watch();
    const body = expectSuccess(await patch(admin, { can_add_custom_emoji_group: { new: moderators, old: await groupId(server, "role:members") } }));
    assert.equal(body.can_add_custom_emoji_group, moderators);
    const anonymous = { direct_members: [member.id], direct_subgroups: [admins] };
    expectSuccess(await patch(admin, { can_mention_many_users_group: { new: anonymous } }));
    expectSuccess(await patch(admin, { can_mention_many_users_group: { new: anonymous } }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "realm", op: "update_dict", property: "default", data: { can_add_custom_emoji_group: moderators } },
      { type: "realm", op: "update_dict", property: "default", data: { can_mention_many_users_group: anonymous } },
    ]);
    const state = await snapshot();
    assert.equal(state.realm_can_add_custom_emoji_group, moderators);
    assert.deepEqual(state.realm_can_mention_many_users_group, anonymous);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ can_add_custom_emoji_group: { new: admins, old: admins } }, "'old' value does not match the expected value."],
      [{ can_add_custom_emoji_group: { new: 999999 } }, "Invalid user group ID: 999999"],
      [{ can_add_custom_emoji_group: { new: await groupId(server, "role:internet") } }, "'can_add_custom_emoji_group' setting cannot be set to 'role:internet' group."],
      [{ can_delete_any_message_group: { new: await groupId(server, "role:everyone") } }, "'can_delete_any_message_group' setting cannot be set to 'role:everyone' group."],
      [{ can_access_all_users_group: { new: moderators } }, "'can_access_all_users_group' setting cannot be set to 'role:moderators' group."],
      [{ can_access_all_users_group: { new: anonymous } }, "'can_access_all_users_group' must be a system user group."],
      [{ can_add_custom_emoji_group: { new: { direct_members: [999999], direct_subgroups: [] } } }, "Invalid user ID: 999999"],
      [{ can_add_custom_emoji_group: "moderators" }, "can_add_custom_emoji_group is not valid JSON"],
    ];
    for (const [params, msg] of bad) expectError(await patch(admin, params), "BAD_REQUEST", msg);
    const { owner } = server.fixtures;
    expectError(await patch(owner, { can_manage_all_groups: { new: await groupId(server, "role:nobody") } }), "BAD_REQUEST", "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.");
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), []);
    // Back to a named group: the anonymous group, no longer used, is gone.
    expectSuccess(await patch(admin, { can_add_custom_emoji_group: { new: await groupId(server, "role:members") }, can_mention_many_users_group: { new: admins } }));
    assert.equal((await snapshot()).realm_can_mention_many_users_group, admins);
    assert.equal(await anonymousGroups(), anonymousBefore);
  });

  test("roles: administrators only; some settings owners only; nothing written when refused", async () => {
    const { owner, admin, moderator, member, guest } = server.fixtures;
    const before = await snapshot();
    for (const who of [moderator, member, guest]) expectError(await patch(who, { name: "Taken Over" }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    // As Zulip's @require_realm_admin: the role is checked before any parameter.
    expectError(await patch(member, { waiting_period_threshold: -1, no_such_setting: "x" }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await patch(member, { name: 7, emails_restricted_to_domains: "maybe" }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await patch(null, { name: "Taken Over" }), "UNAUTHORIZED", NO_AUTH, 401);
    const members = await groupId(server, "role:members");
    for (const params of [
      { invite_required: false },
      { can_create_groups: { new: members } },
      { can_invite_users_group: { new: members } },
      { create_multiuse_invite_group: { new: members } },
      { can_manage_billing_group: { new: members } },
      { emails_restricted_to_domains: true },
      { disallow_disposable_email_addresses: false },
      { waiting_period_threshold: 3 },
      { message_retention_days: 30 },
    ]) {
      expectError(await patch(admin, { name: "Half Changed", ...params }), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    }
    assert.deepEqual(realmKeys(await snapshot()), realmKeys(before));
    expectSuccess(await patch(owner, { invite_required: false, message_retention_days: 30 }));
    const state = await snapshot();
    assert.deepEqual([state.realm_invite_required, state.realm_message_retention_days], [false, 30]);
    expectSuccess(await patch(owner, { invite_required: true, message_retention_days: "unlimited" }));
    assert.equal((await snapshot()).realm_message_retention_days, -1);
  });

  test("validation errors in Zulip's words", async () => {
    const { owner, admin } = server.fixtures;
    const bad: Array<[Credentials, Record<string, unknown>, string]> = [
      [admin, { default_language: "xx" }, "Invalid language 'xx'"],
      [admin, { video_chat_provider: 7 }, "Invalid video_chat_provider 7"],
      [admin, { giphy_rating: 9 }, "Invalid giphy_rating 9"],
      [admin, { name: "n".repeat(41) }, "name is too long (limit: 40 characters)"],
      [admin, { topics_policy: "sometimes" }, "Invalid topics_policy"],
      [admin, { message_edit_history_visibility_policy: "some" }, "Invalid message_edit_history_visibility_policy"],
      [admin, { digest_weekday: 7 }, "Invalid digest_weekday"],
      [admin, { org_type: 11 }, "Invalid org_type"],
      [admin, { message_content_edit_limit_seconds: 0 }, "Bad value for 'message_content_edit_limit_seconds': 0"],
      [admin, { move_messages_between_streams_limit_seconds: "forever" }, "Bad value for 'move_messages_between_streams_limit_seconds': forever"],
      [admin, { jitsi_server_url: '"not a url"' }, "jitsi_server_url is not an allowed_type"],
      [admin, { allow_message_editing: "maybe" }, "allow_message_editing is not a boolean"],
      [owner, { message_retention_days: -3 }, "Bad value for 'message_retention_days': -3"],
      [owner, { waiting_period_threshold: -1 }, "waiting_period_threshold is too small"],
    ];
    for (const [who, params, msg] of bad) expectError(await patch(who, params), "BAD_REQUEST", msg);
    expectSuccess(await patch(admin, { jitsi_server_url: '"https://jitsi.example.com"', org_type: 20, digest_weekday: 3 }));
    const state = await snapshot();
    assert.deepEqual([state.realm_jitsi_server_url, state.realm_org_type, state.realm_digest_weekday], ["https://jitsi.example.com", 20, 3]);
    expectSuccess(await patch(admin, { jitsi_server_url: '"default"', org_type: 0, digest_weekday: 1 }));
    assert.equal((await snapshot()).realm_jitsi_server_url, null);
  });

  test("channel settings: the moderation request channel must be private; -1 turns it off", async () => {
    const { admin } = server.fixtures;
    const open = await channel("town square", false);
    const closed = await channel("moderation desk", true);
    const queue = await watch();
    expectError(await patch(admin, { moderation_request_channel_id: open }), "BAD_REQUEST", "Moderation request channel must be private.");
    expectError(await patch(admin, { moderation_request_channel_id: 999999 }), "BAD_REQUEST", "Invalid channel ID");
    expectSuccess(await patch(admin, { moderation_request_channel_id: closed, new_stream_announcements_stream_id: open }));
    assert.equal((await snapshot()).realm_moderation_request_channel_id, closed);
    expectSuccess(await patch(admin, { moderation_request_channel_id: -1, new_stream_announcements_stream_id: -1 }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "realm", op: "update", property: "moderation_request_channel_id", value: closed },
      { type: "realm", op: "update", property: "new_stream_announcements_stream_id", value: open },
      { type: "realm", op: "update", property: "moderation_request_channel_id", value: -1 },
      { type: "realm", op: "update", property: "new_stream_announcements_stream_id", value: -1 },
    ]);
    const state = await snapshot();
    assert.deepEqual([state.realm_moderation_request_channel_id, state.realm_new_stream_announcements_stream_id], [-1, -1]);
  });

  test("waiting_period_threshold: members newer than the period leave role:fullmembers, and come back", async () => {
    const { owner, member } = server.fixtures;
    const fullMembers = await groupId(server, "role:fullmembers");
    const queue = await watch();
    expectSuccess(await patch(owner, { waiting_period_threshold: 30 }));
    const removed = withoutIds(await pollEvents(server.api, queue));
    assert.deepEqual(removed[0], { type: "realm", op: "update", property: "waiting_period_threshold", value: 30 });
    const removal = removed[1] as { type: string; op: string; group_id: number; user_ids: number[] };
    assert.deepEqual([removal.type, removal.op, removal.group_id], ["user_group", "remove_members", fullMembers]);
    assert.ok(removal.user_ids.includes(member.id));
    expectSuccess(await patch(owner, { waiting_period_threshold: 0 }));
    const added = withoutIds(await pollEvents(server.api, queue));
    assert.deepEqual(added[1], { type: "user_group", op: "add_members", group_id: fullMembers, user_ids: removal.user_ids });
    assert.equal((await snapshot()).realm_waiting_period_threshold, 0);
  });
});
