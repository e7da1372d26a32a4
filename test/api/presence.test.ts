/**
 * Presence: POST /users/me/presence (both formats, last_update_id, history_limit_days, ping_only),
 * GET /realm/presence, GET /users/{user_id_or_email}/presence, `presence` events (legacy and
 * simplified_presence_events forms, only when a user comes online), the register snapshot's
 * presence keys, invisible mode (presence_enabled off through POST /users/me/status `away`), the
 * realm's presence_disabled and guests' limited access. The server's clock is driven by the test.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { Ajv, type ValidateFunction } from "ajv";
import YAML from "yaml";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { doCreateUser } from "../../src/actions/users/create.ts";
import { systemClock } from "../../src/clock.ts";
import { getRealm } from "../../src/store/realm/realms.ts";
import { ROLE } from "../../src/model/roles.ts";
import { countRows, groupId, setRealmSettings, withDb } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import { createUser, type Account } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const FL420_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/zulip-openapi-fl420-generated.yaml");

/**
 * The FL 420 description's `presence` event schema: the simplified form (FL 419) is newer than
 * the OpenAPI copy the test client checks events against, so those events are checked here.
 */
let fl420PresenceEvent: ValidateFunction | null = null;
function assertFl420PresenceEvent(event: unknown): void {
  if (!fl420PresenceEvent) {
    const doc = YAML.parse(fs.readFileSync(FL420_FILE, "utf8"), { maxAliasCount: -1 }) as { components: unknown };
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ components: doc.components }, "fl420");
    fl420PresenceEvent = ajv.compile({ $ref: "fl420#/components/schemas/get_events_200_response_allOf_events_inner_oneOf_15" });
  }
  assert.ok(fl420PresenceEvent(event), `presence event does not match the FL 420 schema: ${JSON.stringify(fl420PresenceEvent.errors)}`);
}

type Modern = { active_timestamp: number; idle_timestamp: number };

describeEachStore("presence", (server) => {
  const post = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/users/me/presence", params);
  /** Moves the server's clock by `seconds` and returns its time in whole seconds. */
  const advance = async (seconds: number): Promise<number> => Math.floor(expectSuccess(await server.api.post(null, "/__test/advance_clock", { seconds })).now_ms / 1000);
  const ping = async (user: Credentials, status = "active") => assert.deepEqual(expectSuccess(await post(user, { status, ping_only: true })), { result: "success", msg: "" });
  /** The modern presence data `viewer` sees in a register snapshot (which, unlike a POST, reports nothing). */
  const modernView = async (viewer: Credentials = server.fixtures.owner): Promise<{ presences: Record<string, Modern>; presence_last_update_id: number }> => {
    const { state } = await registerQueue(server.api, viewer, { event_types: ["presence"], fetch_event_types: ["presence"], slim_presence: true });
    return { presences: state.presences as Record<string, Modern>, presence_last_update_id: state.presence_last_update_id as number };
  };
  /** A queue of `viewer` for presence events in the simplified form (polled without the FL 321 check, see above). */
  const simplifiedQueue = (viewer: Credentials) =>
    registerQueue(server.api, viewer, { event_types: ["presence"], client_capabilities: { notification_settings_null: false, simplified_presence_events: true } });
  async function pollSimplified(queue: Queue): Promise<Array<Record<string, unknown>>> {
    const body = expectSuccess(await server.api.get(queue.user, "/events", { queue_id: queue.queueId, last_event_id: queue.lastEventId, dont_block: true }, { validate: false }));
    const events = (body.events as Array<Record<string, unknown> & { id: number }>).filter((e) => e.type !== "heartbeat");
    if (body.events.length > 0) queue.lastEventId = body.events[body.events.length - 1].id;
    for (const event of events) assertFl420PresenceEvent(event);
    return withoutIds(events);
  }
  /** Legacy events with their server_timestamp checked and dropped (it is the clock's fractional time). */
  async function pollLegacy(queue: Queue): Promise<Array<Record<string, unknown>>> {
    return withoutIds(await pollEvents(server.api, queue)).map(({ server_timestamp, ...rest }) => {
      assert.equal(typeof server_timestamp, "number");
      return rest;
    });
  }
  const apiEmailOf = async (user: Account): Promise<string> => expectSuccess(await server.api.get(server.fixtures.owner, `/users/${user.id}`)).user.email;
  const legacyEntry = (status: "active" | "idle", timestamp: number) => ({ client: "website", status, timestamp, pushable: false });

  test("validation errors, bots and unauthenticated callers; nothing is written", async () => {
    const { member, bot } = server.fixtures;
    const rowsBefore = await countRows(server, ["user_presence"]);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ status: "away" }, "Invalid status: away"],
      [{ status: "active", ping_only: "maybe" }, "ping_only is not a boolean"],
      [{ status: "active", slim_presence: 3 }, "slim_presence is not a boolean"],
      [{ status: "active", last_update_id: "x" }, "last_update_id is not an integer"],
      [{ status: "active", history_limit_days: "x" }, "history_limit_days is not an integer"],
    ];
    expectError(await post(member, {}), "REQUEST_VARIABLE_MISSING", "Missing 'status' argument");
    for (const [params, msg] of bad) expectError(await post(member, params), "BAD_REQUEST", msg);
    expectError(await post(bot, { status: "active" }), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    expectError(await post(null, { status: "active" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.get(null, "/realm/presence"), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.get(null, `/users/${member.id}/presence`), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await countRows(server, ["user_presence"]), rowsBefore);
  });

  test("POST answers: legacy by email, modern with slim_presence or last_update_id; incremental fetches; ping_only", async () => {
    // The clock stands still unless advanced: both users join at t.
    const t = await advance(0);
    const a = await createUser(server);
    const b = await createUser(server);
    const legacy = expectSuccess(await post(a, { status: "active" }));
    assert.equal(typeof legacy.server_timestamp, "number");
    assert.ok(Number.isInteger(legacy.presence_last_update_id) && legacy.presence_last_update_id > 0);
    assert.equal("zephyr_mirror_active" in legacy, false);
    const aEntry = legacyEntry("active", t);
    assert.deepEqual(legacy.presences[await apiEmailOf(a)], { aggregated: { client: "website", status: "active", timestamp: t }, website: aEntry });

    const slim = expectSuccess(await post(a, { status: "active", slim_presence: true }));
    assert.deepEqual(slim.presences[String(a.id)], { active_timestamp: t, idle_timestamp: t });
    // Nothing changed: the same sequence number.
    assert.equal(slim.presence_last_update_id, legacy.presence_last_update_id);

    // last_update_id asks for the modern format and only later changes.
    const all = expectSuccess(await post(a, { status: "active", last_update_id: -1 }));
    assert.deepEqual(all.presences[String(a.id)], { active_timestamp: t, idle_timestamp: t });
    const mark = all.presence_last_update_id;
    assert.deepEqual(expectSuccess(await post(a, { status: "active", last_update_id: mark })), {
      result: "success", msg: "", presences: {}, presence_last_update_id: mark, server_timestamp: all.server_timestamp,
    });
    await ping(b, "idle");
    const delta = expectSuccess(await post(a, { status: "active", last_update_id: mark }));
    assert.deepEqual(delta.presences, { [String(b.id)]: { active_timestamp: t, idle_timestamp: t } });
    assert.equal(delta.presence_last_update_id, mark + 1);

    // Idle users show idle at their last connection in the legacy format.
    const t2 = await advance(120);
    await ping(b, "idle");
    const later = expectSuccess(await post(a, { status: "idle" }));
    assert.deepEqual(later.presences[await apiEmailOf(b)].website, legacyEntry("idle", t2));
    assert.deepEqual(later.presences[await apiEmailOf(a)].website, legacyEntry("idle", t2), "a's idle report moved its connection time, not its activity");
  });

  test("a ping writes only when it moves a time by 55 s or more", async () => {
    const a = await createUser(server);
    const t = await advance(0);
    await ping(a);
    const first = (await modernView()).presence_last_update_id;
    await ping(a);
    await advance(50);
    await ping(a);
    assert.equal((await modernView()).presence_last_update_id, first, "pings within 55 s change nothing");
    const t2 = await advance(10);
    await ping(a, "idle");
    const view = await modernView();
    assert.equal(view.presence_last_update_id, first + 1);
    assert.deepEqual(view.presences[String(a.id)], { active_timestamp: t, idle_timestamp: t2 });
  });

  test("events: only when a user comes online, to each client in its declared format", async () => {
    const { owner, admin } = server.fixtures;
    const x = await createUser(server);
    const email = await apiEmailOf(x);
    const legacyQ = await registerQueue(server.api, owner, { event_types: ["presence"] });
    const modernQ = await simplifiedQueue(admin);
    const t0 = await advance(0);
    await ping(x);
    await ping(x);
    await advance(60);
    await ping(x); // rewrites both times; last active 60 s ago is not "offline"
    const t1 = await advance(100);
    await ping(x, "idle"); // idle reports never announce
    await ping(x); // last active 100 s ago: back online
    assert.deepEqual(await pollLegacy(legacyQ), [
      { type: "presence", user_id: x.id, email, presence: { website: legacyEntry("active", t0) } },
      { type: "presence", user_id: x.id, email, presence: { website: legacyEntry("active", t1) } },
    ]);
    assert.deepEqual(await pollSimplified(modernQ), [
      { type: "presence", presences: { [String(x.id)]: { active_timestamp: t0, idle_timestamp: t0 } } },
      { type: "presence", presences: { [String(x.id)]: { active_timestamp: t1, idle_timestamp: t1 } } },
    ]);
  });

  test("a first report announces the user even when idle", async () => {
    const joined = await advance(0);
    const y = await createUser(server);
    const queue = await registerQueue(server.api, server.fixtures.moderator, { event_types: ["presence"] });
    await advance(60);
    await ping(y, "idle");
    // Before any activity the join time stands for it: within 70 s of the connection, the legacy form says active.
    assert.deepEqual(await pollLegacy(queue), [{ type: "presence", user_id: y.id, email: await apiEmailOf(y), presence: { website: legacyEntry("active", joined) } }]);
    const t = await advance(60);
    const z = await createUser(server);
    await advance(71);
    await ping(z, "idle");
    assert.deepEqual(await pollLegacy(queue), [{ type: "presence", user_id: z.id, email: await apiEmailOf(z), presence: { website: legacyEntry("idle", t + 71) } }]);
  });

  test("invisible mode: presence_enabled off shows the user offline at once, and pings reveal nothing", async () => {
    const { owner, admin } = server.fixtures;
    const y = await createUser(server);
    const email = await apiEmailOf(y);
    const legacyQ = await registerQueue(server.api, owner, { event_types: ["presence"] });
    const modernQ = await simplifiedQueue(admin);
    const t0 = await advance(0);
    await ping(y);
    expectSuccess(await server.api.post(y, "/users/me/status", { away: true }));
    const hidden = t0 - 260;
    const mark = (await modernView()).presence_last_update_id;
    assert.deepEqual((await modernView()).presences[String(y.id)], { active_timestamp: hidden, idle_timestamp: hidden });
    await ping(y);
    await advance(100);
    await ping(y);
    const view = await modernView();
    assert.equal(view.presence_last_update_id, mark, "an invisible user's pings write nothing");
    assert.deepEqual(view.presences[String(y.id)], { active_timestamp: hidden, idle_timestamp: hidden });
    assert.equal(expectSuccess(await server.api.get(owner, `/users/${y.id}/presence`)).presence.aggregated.status, "offline");
    const t1 = await advance(0);
    expectSuccess(await server.api.post(y, "/users/me/status", { away: false }));
    await ping(y);
    assert.deepEqual(await pollLegacy(legacyQ), [
      { type: "presence", user_id: y.id, email, presence: { website: legacyEntry("active", t0) } },
      { type: "presence", user_id: y.id, email, presence: { website: legacyEntry("active", hidden) } },
      { type: "presence", user_id: y.id, email, presence: { website: legacyEntry("active", t1) } },
    ]);
    assert.deepEqual(await pollSimplified(modernQ), [
      { type: "presence", presences: { [String(y.id)]: { active_timestamp: t0, idle_timestamp: t0 } } },
      { type: "presence", presences: { [String(y.id)]: { active_timestamp: hidden, idle_timestamp: hidden } } },
      { type: "presence", presences: { [String(y.id)]: { active_timestamp: t1, idle_timestamp: t1 } } },
    ]);
  });

  test("GET /users/{user_id_or_email}/presence: legacy with offline past the threshold, or modern; Zulip's errors", async () => {
    const { owner, guest, bot } = server.fixtures;
    const z = await createUser(server);
    expectError(await server.api.get(guest, `/users/${z.id}/presence`), "BAD_REQUEST", `No presence data for ${z.id}`);
    const t = await advance(0);
    await ping(z);
    const expected = { aggregated: { status: "active", timestamp: t }, website: { status: "active", timestamp: t } };
    assert.deepEqual(expectSuccess(await server.api.get(guest, `/users/${z.id}/presence`)), { result: "success", msg: "", presence: expected });
    assert.deepEqual(expectSuccess(await server.api.get(guest, `/users/${encodeURIComponent(await apiEmailOf(z))}/presence`)).presence, expected);
    const slim = expectSuccess(await server.api.get(guest, `/users/${z.id}/presence`, { slim_presence: true }, { validate: false }));
    assert.deepEqual(slim.presence, { active_timestamp: t, idle_timestamp: t });
    await advance(141);
    assert.deepEqual(expectSuccess(await server.api.get(guest, `/users/${z.id}/presence`)).presence, {
      aggregated: { status: "offline", timestamp: t },
      website: { status: "active", timestamp: t },
    });
    expectError(await server.api.get(guest, `/users/${bot.id}/presence`), "BAD_REQUEST", "Presence is not supported for bot users.");
    expectError(await server.api.get(guest, "/users/99999/presence"), "BAD_REQUEST", "No such user");
    expectError(await server.api.get(guest, "/users/nobody@example.com/presence"), "BAD_REQUEST", "No such user");
    expectError(await server.api.get(guest, "/users/me/presence"), "BAD_REQUEST", "No such user");
    expectSuccess(await server.api.delete(owner, `/users/${z.id}`));
    expectError(await server.api.get(guest, `/users/${z.id}/presence`), "BAD_REQUEST", "No such user");
  });

  test("GET /realm/presence and the register snapshot; deactivated users and bots are left out", async () => {
    const { owner, bot } = server.fixtures;
    const w = await createUser(server);
    const t = await advance(0);
    await ping(w);
    const realm = expectSuccess(await server.api.get(bot, "/realm/presence"));
    assert.deepEqual(Object.keys(realm).sort(), ["msg", "presences", "result", "server_timestamp"]);
    assert.deepEqual(realm.presences[await apiEmailOf(w)].website, legacyEntry("active", t));
    const legacy = (await registerQueue(server.api, owner, { fetch_event_types: ["presence"] })).state;
    assert.deepEqual(legacy.presences, realm.presences);
    assert.equal(typeof legacy.server_timestamp, "number");
    const view = await modernView();
    assert.equal(legacy.presence_last_update_id, view.presence_last_update_id);
    for (const params of [{ slim_presence: true }, { client_capabilities: { notification_settings_null: false, simplified_presence_events: true } }]) {
      const modern = (await registerQueue(server.api, owner, { fetch_event_types: ["presence"], ...params })).state;
      assert.deepEqual(modern.presences, view.presences);
      assert.equal(modern.presence_last_update_id, view.presence_last_update_id);
    }
    expectSuccess(await server.api.delete(owner, `/users/${w.id}`));
    assert.equal(String(w.id) in (await modernView()).presences, false);
    assert.equal((await apiEmailOf(w)) in expectSuccess(await server.api.get(owner, "/realm/presence")).presences, false);
  });

  test("history limits: presence_history_limit_days and history_limit_days (ignored past a positive last_update_id)", async () => {
    const { owner } = server.fixtures;
    const old = await createUser(server);
    await advance(0);
    await ping(old);
    const mark = (await modernView()).presence_last_update_id;
    await advance(3 * 86_400);
    const recent = await createUser(server);
    await ping(recent);
    const keys = (body: { presences: Record<string, unknown> }) => Object.keys(body.presences);
    const fetch = async (params: Record<string, unknown>) => expectSuccess(await post(owner, { status: "idle", slim_presence: true, ...params }));
    assert.ok(keys(await fetch({})).includes(String(old.id)), "14 days by default");
    const twoDays = keys(await fetch({ history_limit_days: 2 }));
    assert.equal(twoDays.includes(String(old.id)), false);
    assert.ok(twoDays.includes(String(recent.id)));
    assert.deepEqual(await fetch({ history_limit_days: 0 }).then((b) => [b.presences, b.presence_last_update_id]), [{}, -1]);
    // A client already holding data gets every later change, however old (0 days still means none, as upstream's code has it).
    assert.ok(keys(await fetch({ history_limit_days: 2, last_update_id: mark - 1 })).includes(String(old.id)));
    assert.deepEqual(keys(await fetch({ history_limit_days: 0, last_update_id: mark - 1 })), []);
    const snapshot = (await registerQueue(server.api, owner, { fetch_event_types: ["presence"], slim_presence: true, presence_history_limit_days: 2 })).state;
    assert.deepEqual([String(old.id), String(recent.id)].map((id) => id in (snapshot.presences as object)), [false, true]);
    const defaults = (await registerQueue(server.api, owner, { fetch_event_types: ["presence"], slim_presence: true })).state;
    assert.ok(String(old.id) in (defaults.presences as object), "14 days by default");
  });

  test("the realm's presence_disabled: no data and no events, while reports are still recorded", async () => {
    const { owner, admin } = server.fixtures;
    const queue = await registerQueue(server.api, admin, { event_types: ["presence"] });
    await setRealmSettings(server, { presence_disabled: true });
    const v = await createUser(server);
    try {
      await ping(v);
      assert.deepEqual(await modernView(), { presences: {}, presence_last_update_id: -1 });
      const answer = expectSuccess(await post(owner, { status: "active", last_update_id: 3 }));
      assert.deepEqual([answer.presences, answer.presence_last_update_id], [{}, -1]);
      assert.deepEqual(expectSuccess(await server.api.get(owner, "/realm/presence")).presences, {});
      const state = (await registerQueue(server.api, owner, { fetch_event_types: ["presence"] })).state;
      assert.deepEqual([state.presences, state.presence_last_update_id], [{}, -1]);
      assert.deepEqual(await pollLegacy(queue), []);
    } finally {
      await setRealmSettings(server, { presence_disabled: false });
    }
    assert.ok(String(v.id) in (await modernView()).presences);
  });

  test("guests without access to everyone see only the users they may access, and get no events about others", async () => {
    const { guest, owner } = server.fixtures;
    await setRealmSettings(server, { can_access_all_users_group: await groupId(server, "role:members") });
    try {
      const queue = await registerQueue(server.api, guest, { event_types: ["presence"] });
      const u = await createUser(server);
      await ping(u);
      await ping(guest);
      assert.deepEqual(Object.keys((await modernView(guest)).presences), [String(guest.id)]);
      assert.deepEqual(Object.keys(expectSuccess(await server.api.get(guest, "/realm/presence")).presences), [guest.email]);
      expectError(await server.api.get(guest, `/users/${owner.id}/presence`), "BAD_REQUEST", "Insufficient permission");
      assert.deepEqual((await pollLegacy(queue)).map((e) => e.user_id), [guest.id], "only the guest's own coming online");
      assert.ok(Object.keys((await modernView()).presences).includes(String(u.id)), "others still see the new user");
    } finally {
      await setRealmSettings(server, { can_access_all_users_group: await groupId(server, "role:everyone") });
    }
  });

  test("past 100 active users, coming online is not announced; presence_enabled changes still are", async () => {
    const { owner } = server.fixtures;
    const queue = await registerQueue(server.api, owner, { event_types: ["presence"] });
    await withDb(server, async (db) => {
      const realm = await getRealm(db, server.fixtures.realmId);
      if (!realm) throw new Error("fixture realm missing");
      for (let i = 0; i < 100; i++) {
        await db.transaction().execute((tx) => doCreateUser(tx, { realm, clock: systemClock }, { email: `crowd${i}@example.com`, fullName: `Crowd ${i}`, role: ROLE.member }));
      }
    });
    const u = await createUser(server);
    await ping(u);
    assert.ok(String(u.id) in (await modernView()).presences);
    assert.deepEqual(await pollLegacy(queue), []);
    const t = await advance(0);
    expectSuccess(await server.api.post(u, "/users/me/status", { away: true }));
    assert.deepEqual(await pollLegacy(queue), [{ type: "presence", user_id: u.id, email: await apiEmailOf(u), presence: { website: legacyEntry("active", t - 260) } }]);
  });
});

describeEachStore("presence with PRESENCE_EVENT_USER_LIMIT=3", { env: { PRESENCE_EVENT_USER_LIMIT: "3" } }, (server) => {
  test("past the configured number of active users, coming online is not announced", async () => {
    const queue = await registerQueue(server.api, server.fixtures.owner, { event_types: ["presence"] });
    const u = await createUser(server);
    expectSuccess(await server.api.post(u, "/users/me/presence", { status: "active" }));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), []);
  });
});
