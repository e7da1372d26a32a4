/** Linkifiers: GET/PATCH /realm/linkifiers, POST /realm/filters, PATCH/DELETE /realm/filters/{id}, register data, events. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN } from "../helpers/errors.ts";

const ISSUES = { pattern: "#(?P<id>[0-9]+)", url_template: "https://github.com/zulip/zulip/issues/{id}" };

describeEachStore("linkifiers", (server) => {
  async function list(): Promise<Array<{ id: number; pattern: string; url_template: string }>> {
    return expectSuccess(await server.api.get(server.fixtures.guest, "/realm/linkifiers")).linkifiers;
  }

  async function clear(): Promise<void> {
    for (const l of await list()) expectSuccess(await server.api.delete(server.fixtures.admin, `/realm/filters/${l.id}`));
  }

  test("add, list (any user), update, delete", async () => {
    const { admin, owner } = server.fixtures;
    const { id } = expectSuccess(await server.api.post(admin, "/realm/filters", ISSUES));
    const gh = { pattern: "(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)", url_template: "https://github.com/{org}/{repo}/issues/{id}" };
    const second = expectSuccess(await server.api.post(owner, "/realm/filters", gh)).id;
    const plain = expectSuccess(await server.api.post(admin, "/realm/filters", { pattern: "3#123", url_template: "https://example.com" })).id;
    assert.deepEqual(await list(), [{ id, ...ISSUES }, { id: second, ...gh }, { id: plain, pattern: "3#123", url_template: "https://example.com" }]);
    const changed = { pattern: "#(?P<id>[123])", url_template: "https://realm.com/my_realm_filter/issues/{id}" };
    expectSuccess(await server.api.patch(admin, `/realm/filters/${id}`, changed));
    assert.deepEqual((await list())[0], { id, ...changed });
    expectSuccess(await server.api.delete(admin, `/realm/filters/${second}`));
    assert.deepEqual((await list()).map((l) => l.id), [id, plain]);
    await clear();
  });

  test("only administrators write; no credentials refused; nothing written", async () => {
    const { admin, moderator, member, guest, bot } = server.fixtures;
    for (const who of [moderator, member, guest, bot]) {
      expectError(await server.api.post(who, "/realm/filters", ISSUES), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    }
    expectError(await server.api.post(null, "/realm/filters", ISSUES), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.get(null, "/realm/linkifiers"), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await list(), []);
    const { id } = expectSuccess(await server.api.post(admin, "/realm/filters", ISSUES));
    const other = { pattern: "!(?P<id>[0-9]+)", url_template: "https://x.example.com/{id}" };
    expectError(await server.api.patch(member, `/realm/filters/${id}`, other), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await server.api.delete(moderator, `/realm/filters/${id}`), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await server.api.patch(guest, "/realm/linkifiers", { ordered_linkifier_ids: [id] }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await server.api.delete(null, `/realm/filters/${id}`), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.patch(admin, `/realm/filters/${id + 100}`, other), "BAD_REQUEST", "Linkifier not found.");
    expectError(await server.api.delete(admin, `/realm/filters/${id + 100}`), "BAD_REQUEST", "Linkifier not found.");
    assert.deepEqual(await list(), [{ id, ...ISSUES }]);
    await clear();
  });

  test("pattern and template validation (upstream's messages), each writing nothing", async () => {
    const { admin } = server.fixtures;
    const add = (pattern: string, url_template = "https://realm.com/my_realm_filter/{id}") => server.api.post(admin, "/realm/filters", { pattern, url_template });
    expectError(await add(""), "BAD_REQUEST", "This field cannot be blank.");
    expectError(await add("(foo"), "BAD_REQUEST", "Bad regular expression: missing ): (foo");
    expectError(await add("foo)"), "BAD_REQUEST", "Bad regular expression: unexpected ): foo)");
    expectError(await add("ZUL-(?P<id>\\d????)"), "BAD_REQUEST", "Bad regular expression: bad repetition operator: ????");
    expectError(await add("ZUL-(?P<id>[0-9+)"), "BAD_REQUEST", "Bad regular expression: missing ]: [0-9+)");
    expectError(await add("(?P<id>\\d+)-\\1"), "BAD_REQUEST", "Bad regular expression: invalid escape sequence: \\1");
    expectError(await add("(?=x)(?P<id>\\d+)"), "BAD_REQUEST", "Bad regular expression: invalid perl operator: (?=");
    expectError(await add("(?<=x)(?P<id>\\d+)"), "BAD_REQUEST", "Bad regular expression: invalid perl operator: (?<=");
    expectError(await add("(?P<a-b>\\d+)"), "BAD_REQUEST", "Bad regular expression: invalid named capture group: (?P<a-b>");
    expectError(await add("*(?P<id>\\d+)"), "BAD_REQUEST", "Bad regular expression: no argument for repetition operator: *");
    expectError(await add("(?P<id>\\d{1,2000})"), "BAD_REQUEST", "Bad regular expression: invalid repetition size: {1,2000}");
    expectError(await add("(?P<id>\\d)\\Z"), "BAD_REQUEST", "Bad regular expression: invalid escape sequence: \\Z");
    expectError(await add("(?P<id>\\d)\\"), "BAD_REQUEST", "Bad regular expression: trailing \\");
    expectError(await add("(?P<id>(?:.*a){700})"), "BAD_REQUEST", "Bad regular expression: pattern too large - compile failed");
    expectError(await add("ZUL-(?P<id>\\d+)", "$fgfg"), "BAD_REQUEST", "Group 'id' in linkifier pattern is not present in URL template.");
    expectError(await add("ZUL-(?P<id>\\d+)", "https://realm.com/my_realm_filter/{hello}"), "BAD_REQUEST", "Group 'hello' in URL template is not present in linkifier pattern.");
    expectError(await add("ZUL-(?P<id>\\d+)-(?P<hello>\\d+)", "https://realm.com/{hello}"), "BAD_REQUEST", "Group 'id' in linkifier pattern is not present in URL template.");
    expectError(await add("#(?P<id>[123])", "{id"), "BAD_REQUEST", "Invalid URL template.");
    assert.deepEqual(await list(), []);
    const { id } = expectSuccess(await add("ZUL-(?P<id>\\d+)"));
    expectError(await add("ZUL-(?P<id>\\d+)"), "BAD_REQUEST", "Realm filter with this Realm and Pattern already exists.");
    expectSuccess(await add("FOO_(?P<id>[a-f]{5});(?P<zone>[a-f]);(?P<name>[a-z]{2,8})", "https://zone_{zone}.net/ticket{/id}{?name}"));
    const bad = { pattern: "ZUL-(?P<id>\\d????)", url_template: "https://realm.com/{id}" };
    expectError(await server.api.patch(admin, `/realm/filters/${id}`, bad), "BAD_REQUEST", "Bad regular expression: bad repetition operator: ????");
    assert.equal((await list())[0].pattern, "ZUL-(?P<id>\\d+)");
    await clear();
  });

  test("RE2 accepts what backtracking engines choke on, names groups as RE2 does, and bounds a pattern's length", async () => {
    const { admin } = server.fixtures;
    const add = (pattern: string, url_template = "https://e.com/{id}") => server.api.post(admin, "/realm/filters", { pattern, url_template });
    // No backtracking, so nested repetition is fine (matching cost: test/api/linkifiers-redos.test.ts).
    for (const pattern of ["(?P<id>(a+)+)b", "(?P<id>(?:\\d*)*)", "(?P<id>(a|a)*)", "(?P<id>(\\w|\\d)+)!", "(?P<id>\\d+)+"]) expectSuccess(await add(pattern));
    // RE2 allows a name twice (the first group counts), a name starting with a digit, and (?<name>...).
    expectSuccess(await add("#(?P<id>\\d+)-(?P<id>\\d+)"));
    expectSuccess(await add("(?P<1d>\\d+)!", "https://e.com/{1d}"));
    expectSuccess(await add("(?<id>\\d+)~"));
    const ids = (await list()).map((l) => l.id);
    assert.equal(ids.length, 8);
    const longest = `${"(?i)".repeat(247)}(?P<id>\\d+)!`;
    assert.equal(longest.length, 1000);
    expectSuccess(await add(longest));
    expectError(await add(`${longest}y`), "BAD_REQUEST", "Ensure this value has at most 1000 characters (it has 1001).");
    expectError(await add(`${"😀".repeat(1001)}`), "BAD_REQUEST", "Ensure this value has at most 1000 characters (it has 1001).");
    const id = ids[0];
    expectError(await server.api.patch(admin, `/realm/filters/${id}`, { pattern: `${longest}y`, url_template: "https://e.com/{id}" }), "BAD_REQUEST", "Ensure this value has at most 1000 characters (it has 1001).");
    assert.equal((await list()).length, 9);
    await clear();
  });

  test("reorder: every linkifier exactly once; new ones go last; deletion keeps the order", async () => {
    const { admin } = server.fixtures;
    expectSuccess(await server.api.patch(admin, "/realm/linkifiers", { ordered_linkifier_ids: [] }));
    const ids: number[] = [];
    for (const n of [1, 2, 3]) ids.push(expectSuccess(await server.api.post(admin, "/realm/filters", { pattern: `${n}#(?P<id>[123])`, url_template: `https://f.com/${n}/{id}` })).id);
    const order = [ids[2], ids[1], ids[0]];
    expectSuccess(await server.api.patch(admin, "/realm/linkifiers", { ordered_linkifier_ids: order }));
    assert.deepEqual((await list()).map((l) => l.id), order);
    const added = expectSuccess(await server.api.post(admin, "/realm/filters", { pattern: "3#123", url_template: "https://example.com" })).id;
    assert.deepEqual((await list()).map((l) => l.id), [...order, added]);
    expectSuccess(await server.api.delete(admin, `/realm/filters/${order[2]}`));
    const now = [order[0], order[1], added];
    assert.deepEqual((await list()).map((l) => l.id), now);
    const reorder = (ordered_linkifier_ids: number[]) => server.api.patch(admin, "/realm/linkifiers", { ordered_linkifier_ids });
    expectError(await reorder([order[2], ...now]), "BAD_REQUEST", "The ordered list must enumerate all existing linkifiers exactly once");
    expectError(await reorder([...now, now[0]]), "BAD_REQUEST", "The ordered list must not contain duplicated linkifiers");
    expectError(await reorder(now.slice(0, 2)), "BAD_REQUEST", "The ordered list must enumerate all existing linkifiers exactly once");
    expectError(await server.api.patch(admin, "/realm/linkifiers", {}), "REQUEST_VARIABLE_MISSING", "Missing 'ordered_linkifier_ids' argument");
    assert.deepEqual((await list()).map((l) => l.id), now);
    await clear();
  });

  test("register and events: realm_linkifiers only for clients with linkifier_url_template", async () => {
    const { admin, member } = server.fixtures;
    const modern = await registerQueue(server.api, member, { fetch_event_types: ["realm_linkifiers", "realm_filters"], event_types: ["realm_linkifiers"], client_capabilities: { notification_settings_null: false, linkifier_url_template: true } });
    const legacy = await registerQueue(server.api, member, { fetch_event_types: ["realm_linkifiers", "realm_filters"], event_types: ["realm_linkifiers"] });
    assert.deepEqual(modern.state.realm_linkifiers, []);
    const { id } = expectSuccess(await server.api.post(admin, "/realm/filters", ISSUES));
    expectError(await server.api.post(admin, "/realm/filters", ISSUES), "BAD_REQUEST", "Realm filter with this Realm and Pattern already exists.");
    expectSuccess(await server.api.delete(admin, `/realm/filters/${id}`));
    assert.deepEqual(withoutIds(await pollEvents(server.api, modern)), [
      { type: "realm_linkifiers", realm_linkifiers: [{ id, ...ISSUES }] },
      { type: "realm_linkifiers", realm_linkifiers: [] },
    ]);
    assert.deepEqual(await pollEvents(server.api, legacy), []);
    const again = expectSuccess(await server.api.post(admin, "/realm/filters", ISSUES)).id;
    const snapshot = (caps: Record<string, boolean>) =>
      registerQueue(server.api, member, { fetch_event_types: ["realm_linkifiers", "realm_filters"], client_capabilities: { notification_settings_null: false, ...caps } });
    const withCap = (await snapshot({ linkifier_url_template: true })).state;
    assert.deepEqual(withCap.realm_linkifiers, [{ id: again, ...ISSUES }]);
    assert.deepEqual(withCap.realm_filters, []);
    assert.deepEqual((await snapshot({})).state.realm_linkifiers, []);
    await clear();
  });
});
