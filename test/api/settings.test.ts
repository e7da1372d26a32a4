/**
 * PATCH /settings (and the legacy /settings/display, /settings/notifications), PATCH
 * /realm/user_settings_defaults: stored values in the next register snapshot, user_settings
 * events and their legacy forms per client capability, what others see change, errors.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { setRealmSettings } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { createUser } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN, WRONG_LOGIN } from "../helpers/errors.ts";

const NOT_IN_LIST = "Not in the list of possible values";
const MODERN = { notification_settings_null: true, user_settings_object: true };

describeEachStore("personal settings", (server) => {
  const patch = (user: Credentials | null, params: Record<string, unknown>, path = "/settings") => server.api.patch(user, path, params);
  async function ownSettings(user: Credentials): Promise<Record<string, unknown>> {
    return (await registerQueue(server.api, user, { fetch_event_types: ["user_settings"] })).state.user_settings as Record<string, unknown>;
  }

  test("changes show in the next snapshot; unknown keys are reported; the legacy paths are aliases", async () => {
    const { moderator } = server.fixtures;
    const body = expectSuccess(
      await patch(moderator, { enter_sends: true, color_scheme: 2, emojiset: "text", web_home_view: "all_messages", web_font_size_px: 14, timezone: "Asia/Kolkata", bogus: 1 }),
    );
    assert.deepEqual(body.ignored_parameters_unsupported, ["bogus"]);
    expectSuccess(await patch(moderator, { enable_sounds: false, notification_sound: "ding", email_notifications_batching_period_seconds: 300 }, "/settings/notifications"));
    expectSuccess(await patch(moderator, { default_language: "de", twenty_four_hour_time: true }, "/settings/display"));
    expectSuccess(await patch(moderator, { resolved_topic_notice_auto_read_policy: "never", hide_ai_features: true, web_channel_default_view: 4 }));
    const settings = await ownSettings(moderator);
    const expected = {
      enter_sends: true, color_scheme: 2, emojiset: "text", web_home_view: "all_messages", web_font_size_px: 14, timezone: "Asia/Kolkata",
      enable_sounds: false, notification_sound: "ding", email_notifications_batching_period_seconds: 300, default_language: "de",
      twenty_four_hour_time: true, resolved_topic_notice_auto_read_policy: "never", hide_ai_features: true, web_channel_default_view: 4,
    };
    for (const [key, value] of Object.entries(expected)) assert.deepEqual(settings[key], value, key);
    // Back to defaults: the same snapshot as an untouched user's, but for the time zone.
    expectSuccess(await patch(moderator, {
      enter_sends: false, color_scheme: 1, emojiset: "google", web_home_view: "inbox", web_font_size_px: 16, enable_sounds: true, notification_sound: "zulip",
      email_notifications_batching_period_seconds: 120, default_language: "en", twenty_four_hour_time: false, resolved_topic_notice_auto_read_policy: "except_followed",
      hide_ai_features: false, web_channel_default_view: 1,
    }));
  });

  test("validation errors (Zulip's words) write nothing; bots and strangers are refused", async () => {
    const { member, bot } = server.fixtures;
    const before = await ownSettings(member);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ color_scheme: 7 }, `Invalid color_scheme: ${NOT_IN_LIST}`],
      [{ emojiset: "apple" }, `Invalid emojiset: ${NOT_IN_LIST}`],
      [{ web_home_view: "nowhere" }, `Invalid web_home_view: ${NOT_IN_LIST}`],
      [{ enter_sends: "maybe" }, "enter_sends is not a boolean"],
      [{ web_font_size_px: "big" }, "web_font_size_px is not an integer"],
      [{ email_address_visibility: 9 }, `Invalid email_address_visibility: ${NOT_IN_LIST}`],
      [{ resolved_topic_notice_auto_read_policy: "sometimes" }, "Invalid resolved_topic_notice_auto_read_policy"],
      [{ timezone: "Mars/Olympus_Mons" }, "Invalid timezone: Not a recognized time zone"],
      [{ timezone: "asia/kolkata" }, "Invalid timezone: Not a recognized time zone"],
      [{ timezone: "" }, "Invalid timezone: Not a recognized time zone"],
      [{ enter_sends: true, default_language: "xx" }, "Invalid default_language"],
      [{ enter_sends: true, notification_sound: "klaxon" }, "Invalid notification sound 'klaxon'"],
      [{ enter_sends: true, email_notifications_batching_period_seconds: 0 }, "Invalid email batching period: 0 seconds"],
      [{ enter_sends: true, email_notifications_batching_period_seconds: 604801 }, "Invalid email batching period: 604801 seconds"],
      [{ enter_sends: true, full_name: "x" }, "Name too short!"],
    ];
    for (const [params, msg] of bad) expectError(await patch(member, params), "BAD_REQUEST", msg);
    expectError(await patch(bot, { enter_sends: true }), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    expectError(await patch(null, { enter_sends: true }), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await ownSettings(member), before);
    expectSuccess(await patch(member, { notification_sound: "none", timezone: "US/Eastern" }));
    assert.equal((await ownSettings(member)).notification_sound, "none");
    expectSuccess(await patch(member, { notification_sound: "zulip" }));
  });

  test("events: user_settings for every client, the legacy forms only without user_settings_object", async () => {
    const account = await createUser(server);
    const types = ["user_settings", "update_display_settings", "update_global_notifications"];
    const modern = await registerQueue(server.api, account, { event_types: types, client_capabilities: MODERN });
    const legacy = await registerQueue(server.api, account, { event_types: types });
    expectSuccess(await patch(account, { enter_sends: true, enable_sounds: false, default_language: "de", send_read_receipts: false, user_list_style: 3 }));
    expectSuccess(await patch(account, { enter_sends: true }));
    const events = [
      { type: "user_settings", op: "update", property: "default_language", value: "de", language_name: "Deutsch" },
      { type: "user_settings", op: "update", property: "enable_sounds", value: false },
      { type: "user_settings", op: "update", property: "enter_sends", value: true },
      { type: "user_settings", op: "update", property: "send_read_receipts", value: false },
      { type: "user_settings", op: "update", property: "user_list_style", value: 3 },
    ];
    assert.deepEqual(withoutIds(await pollEvents(server.api, modern)), events);
    assert.deepEqual(withoutIds(await pollEvents(server.api, legacy)), [
      events[0],
      { type: "update_display_settings", user: account.email, setting_name: "default_language", setting: "de", language_name: "Deutsch" },
      events[1],
      { type: "update_global_notifications", user: account.email, notification_name: "enable_sounds", setting: false },
      events[2],
      { type: "update_display_settings", user: account.email, setting_name: "enter_sends", setting: true },
      events[3],
      events[4],
    ]);
    // Without user_settings_object the snapshot carries the legacy top-level copies.
    const state = (await registerQueue(server.api, account, { fetch_event_types: types })).state;
    assert.equal(state.enter_sends, true);
    assert.equal(state.enable_sounds, false);
    assert.equal(state.default_language, "de");
  });

  test("timezone: the user's clients and everyone who can see the user hear of it", async () => {
    const account = await createUser(server);
    const { admin } = server.fixtures;
    const watcher = await registerQueue(server.api, admin, { event_types: ["realm_user", "user_settings"], client_capabilities: MODERN });
    const self = await registerQueue(server.api, account, { event_types: ["realm_user", "user_settings", "update_display_settings"] });
    expectSuccess(await patch(account, { timezone: "Europe/Paris" }));
    const person = { type: "realm_user", op: "update", person: { user_id: account.id, email: account.email, timezone: "Europe/Paris" } };
    assert.deepEqual(withoutIds(await pollEvents(server.api, watcher)), [person]);
    assert.deepEqual(withoutIds(await pollEvents(server.api, self)), [
      { type: "user_settings", op: "update", property: "timezone", value: "Europe/Paris" },
      { type: "update_display_settings", user: account.email, setting_name: "timezone", setting: "Europe/Paris" },
      person,
    ]);
    const user = expectSuccess(await server.api.get(admin, `/users/${account.id}`)).user;
    assert.equal(user.timezone, "Europe/Paris");
  });

  test("email_address_visibility: who sees the real address changes, and the API email when it stops being public", async () => {
    const account = await createUser(server);
    const { admin, moderator } = server.fixtures;
    const host = new URL(server.url).hostname;
    const dummy = `user${account.id}@${host}`;
    const forAdmin = await registerQueue(server.api, admin, { event_types: ["realm_user"], client_capabilities: MODERN });
    const forModerator = await registerQueue(server.api, moderator, { event_types: ["realm_user"], client_capabilities: MODERN });
    const self = await registerQueue(server.api, account, { event_types: ["realm_user", "user_settings"], client_capabilities: MODERN });
    expectSuccess(await patch(account, { email_address_visibility: 3 }));
    const newEmail = { type: "realm_user", op: "update", person: { user_id: account.id, new_email: dummy } };
    const adminEvents = withoutIds(await pollEvents(server.api, forAdmin));
    assert.deepEqual(adminEvents.slice(0, 1), [newEmail]);
    assert.deepEqual(Object.keys((adminEvents[1].person as object)).sort(), ["avatar_source", "avatar_url", "avatar_url_medium", "avatar_version", "user_id"]);
    assert.equal(adminEvents.length, 2);
    const moderatorEvents = withoutIds(await pollEvents(server.api, forModerator));
    assert.deepEqual(moderatorEvents.slice(0, 2), [{ type: "realm_user", op: "update", person: { user_id: account.id, delivery_email: null } }, newEmail]);
    assert.equal(moderatorEvents.length, 3);
    const selfEvents = withoutIds(await pollEvents(server.api, self));
    assert.deepEqual(selfEvents.slice(0, 2), [{ type: "user_settings", op: "update", property: "email_address_visibility", value: 3 }, newEmail]);
    const seenByModerator = expectSuccess(await server.api.get(moderator, `/users/${account.id}`)).user;
    assert.deepEqual([seenByModerator.email, seenByModerator.delivery_email], [dummy, null]);
    const seenByAdmin = expectSuccess(await server.api.get(admin, `/users/${account.id}`)).user;
    assert.deepEqual([seenByAdmin.email, seenByAdmin.delivery_email], [dummy, account.email]);
    // Moderators-only to admins-only and back: moderators' view changes, the API email does not.
    expectSuccess(await patch(account, { email_address_visibility: 5 }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, forModerator)), [{ type: "realm_user", op: "update", person: { user_id: account.id, delivery_email: account.email } }]);
    assert.deepEqual(withoutIds(await pollEvents(server.api, forAdmin)), []);
    assert.equal((await ownSettings(account)).email_address_visibility, 5);
  });

  test("full_name: renames the user; ignored for members when name changes are disabled", async () => {
    const account = await createUser(server, { name: "Rena Rename" });
    const watcher = await registerQueue(server.api, server.fixtures.admin, { event_types: ["realm_user"], client_capabilities: MODERN });
    expectSuccess(await patch(account, { full_name: "  Rena Renamed " }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, watcher)), [{ type: "realm_user", op: "update", person: { user_id: account.id, full_name: "Rena Renamed" } }]);
    await setRealmSettings(server, { name_changes_disabled: true });
    try {
      expectSuccess(await patch(account, { full_name: "Someone Else" }));
      assert.deepEqual(withoutIds(await pollEvents(server.api, watcher)), []);
      const user = expectSuccess(await server.api.get(account, `/users/${account.id}`)).user;
      assert.equal(user.full_name, "Rena Renamed");
      expectSuccess(await patch(server.fixtures.admin, { full_name: "Adam Admin" }));
    } finally {
      await setRealmSettings(server, { name_changes_disabled: false });
    }
  });

  test("password: the old one must match; the new one must be long enough; then only it logs in", async () => {
    const account = await createUser(server);
    const login = (password: string) => server.api.post(null, "/fetch_api_key", { username: account.email, password });
    expectError(await patch(account, { old_password: "nope", new_password: "brand-new-password" }), "BAD_REQUEST", "Wrong password!");
    expectError(await patch(account, { new_password: "brand-new-password" }), "BAD_REQUEST", "Wrong password!");
    expectError(await patch(account, { old_password: "account-password-1", new_password: "short" }), "BAD_REQUEST", "New password is too weak!");
    expectSuccess(await login("account-password-1"));
    expectSuccess(await patch(account, { old_password: "account-password-1", new_password: "brand-new-password" }));
    expectSuccess(await login("brand-new-password"));
    expectError(await login("account-password-1"), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
  });

  test("email: checked as Zulip checks it; without SMTP_URL no confirmation can be mailed, which a valid request is told", async () => {
    const account = await createUser(server);
    const { member } = server.fixtures;
    expectError(await patch(account, { email: "not an address" }), "BAD_REQUEST", "Invalid address.");
    expectError(await patch(account, { email: member.email }), "BAD_REQUEST", "Already has an account.");
    expectError(await patch(account, { email: "someone@mailinator.com" }), "BAD_REQUEST", "Please use your real email address.");
    expectSuccess(await patch(account, { email: account.email }));
    // test/api/account-emails.test.ts follows a change through its emailed confirmation.
    expectError(await patch(account, { email: "fresh-address@example.com" }), "BAD_REQUEST", "This server does not send email, so it cannot confirm a new email address. Ask an administrator of the organization to change it.");
    assert.equal(expectSuccess(await server.api.get(account, `/users/${account.id}`)).user.delivery_email, account.email);
    await setRealmSettings(server, { email_changes_disabled: true });
    try {
      expectError(await patch(account, { email: "other-address@example.com" }), "BAD_REQUEST", "Email address changes are disabled in this organization.");
    } finally {
      await setRealmSettings(server, { email_changes_disabled: false });
    }
  });

  test("presence_enabled: stored and announced like the other notification settings", async () => {
    const account = await createUser(server);
    const queue = await registerQueue(server.api, account, { event_types: ["user_settings", "update_global_notifications"] });
    expectSuccess(await patch(account, { presence_enabled: false }));
    assert.equal((await ownSettings(account)).presence_enabled, false);
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "user_settings", op: "update", property: "presence_enabled", value: false },
      { type: "update_global_notifications", user: account.email, notification_name: "presence_enabled", setting: false },
    ]);
  });

  test("enable_drafts_synchronization off deletes the stored drafts, with no events", async () => {
    const account = await createUser(server);
    const draft = { type: "", to: [], topic: "", content: "unsent thoughts", timestamp: 1700000000 };
    expectSuccess(await server.api.post(account, "/drafts", { drafts: [draft] }));
    const queue = await registerQueue(server.api, account, { event_types: ["drafts"] });
    expectSuccess(await patch(account, { enable_drafts_synchronization: false }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), []);
    expectSuccess(await patch(account, { enable_drafts_synchronization: true }));
    assert.deepEqual(expectSuccess(await server.api.get(account, "/drafts")).drafts, []);
  });
});

describeEachStore("realm user settings defaults", (server) => {
  const patch = (user: Credentials | null, params: Record<string, unknown>) => server.api.patch(user, "/realm/user_settings_defaults", params);
  async function defaults(user: Credentials): Promise<Record<string, unknown>> {
    return (await registerQueue(server.api, user, { fetch_event_types: ["realm_user_settings_defaults"] })).state.realm_user_settings_defaults as Record<string, unknown>;
  }

  test("administrators change them; everyone hears; users created later start with them", async () => {
    const { admin, member } = server.fixtures;
    const watcher = await registerQueue(server.api, member, { event_types: ["realm_user_settings_defaults"] });
    const body = expectSuccess(await patch(admin, { enter_sends: true, web_home_view: "recent_topics", email_address_visibility: 2, enable_login_emails: false }));
    assert.deepEqual(body.ignored_parameters_unsupported, ["enable_login_emails"]);
    expectSuccess(await patch(admin, { enter_sends: true }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, watcher)), [
      { type: "realm_user_settings_defaults", op: "update", property: "email_address_visibility", value: 2 },
      { type: "realm_user_settings_defaults", op: "update", property: "enter_sends", value: true },
      { type: "realm_user_settings_defaults", op: "update", property: "web_home_view", value: "recent_topics" },
    ]);
    const shown = await defaults(member);
    assert.deepEqual([shown.enter_sends, shown.web_home_view, shown.email_address_visibility], [true, "recent_topics", 2]);
    // Existing users keep their settings; a new one starts with the defaults.
    const before = (await registerQueue(server.api, member, { fetch_event_types: ["user_settings"] })).state.user_settings as Record<string, unknown>;
    assert.deepEqual([before.enter_sends, before.web_home_view, before.email_address_visibility], [false, "inbox", 1]);
    const account = await createUser(server);
    const fresh = (await registerQueue(server.api, account, { fetch_event_types: ["user_settings"] })).state.user_settings as Record<string, unknown>;
    assert.deepEqual([fresh.enter_sends, fresh.web_home_view, fresh.email_address_visibility], [true, "recent_topics", 2]);
    const seen = expectSuccess(await server.api.get(member, `/users/${account.id}`)).user;
    assert.equal(seen.email, `user${account.id}@${new URL(server.url).hostname}`);
    expectSuccess(await patch(admin, { enter_sends: false, web_home_view: "inbox", email_address_visibility: 1 }));
  });

  test("refused to non-administrators; values checked; nothing written", async () => {
    const { admin, moderator, member, guest } = server.fixtures;
    const before = await defaults(member);
    for (const who of [moderator, member, guest]) {
      expectError(await patch(who, { enter_sends: true }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    }
    expectError(await patch(null, { enter_sends: true }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await patch(admin, { notification_sound: "klaxon" }), "BAD_REQUEST", "Invalid notification sound 'klaxon'");
    expectError(await patch(admin, { email_notifications_batching_period_seconds: -5 }), "BAD_REQUEST", "Invalid email batching period: -5 seconds");
    expectError(await patch(admin, { web_home_view: "nowhere" }), "BAD_REQUEST", "Invalid web_home_view");
    expectError(await patch(admin, { color_scheme: 0 }), "BAD_REQUEST", `Invalid color_scheme: ${NOT_IN_LIST}`);
    assert.deepEqual(await defaults(member), before);
  });
});
