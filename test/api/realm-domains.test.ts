/**
 * The organization's allowed email domains: GET/POST /realm/domains, PATCH and DELETE
 * /realm/domains/{domain} (owners only, as upstream's require_realm_owner), upstream's domain
 * validation and wording, the realm_domains events (checked against the OpenAPI event schemas by
 * the client) and the realm_domains key of POST /register; removing the last domain turns
 * emails_restricted_to_domains off.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_OWNER } from "../helpers/errors.ts";

describeEachStore("realm domains", (server) => {
  const add = (user: Credentials | null, domain: string, allowSubdomains = false) => server.api.post(user, "/realm/domains", { domain, allow_subdomains: allowSubdomains });
  async function listed(user: Credentials = server.fixtures.member): Promise<unknown> {
    return expectSuccess(await server.api.get(user, "/realm/domains")).domains;
  }

  test("owners add, change and remove domains; everyone lists them, in GET and in /register; every active user hears", async () => {
    const { owner, member, guest } = server.fixtures;
    const queues = await Promise.all([member, guest].map((u) => registerQueue(server.api, u, { event_types: ["realm_domains", "realm"] })));
    const made = expectSuccess(await add(owner, "  Example.ORG ", true));
    assert.equal(typeof made.new_domain[0], "number");
    assert.equal(made.new_domain[1], "example.org");
    expectSuccess(await add(owner, "zulip.test"));
    assert.deepEqual(await listed(guest), [
      { domain: "example.org", allow_subdomains: true },
      { domain: "zulip.test", allow_subdomains: false },
    ]);
    const { state } = await registerQueue(server.api, member, { fetch_event_types: ["realm_domains"] });
    assert.deepEqual(state.realm_domains, [
      { domain: "example.org", allow_subdomains: true },
      { domain: "zulip.test", allow_subdomains: false },
    ]);
    expectSuccess(await server.api.patch(owner, "/realm/domains/zulip.test", { allow_subdomains: true }));
    expectSuccess(await server.api.delete(owner, "/realm/domains/example.org"));
    for (const queue of queues) {
      assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
        { type: "realm_domains", op: "add", realm_domain: { domain: "example.org", allow_subdomains: true } },
        { type: "realm_domains", op: "add", realm_domain: { domain: "zulip.test", allow_subdomains: false } },
        { type: "realm_domains", op: "change", realm_domain: { domain: "zulip.test", allow_subdomains: true } },
        { type: "realm_domains", op: "remove", domain: "example.org" },
      ]);
    }
    assert.deepEqual(await listed(), [{ domain: "zulip.test", allow_subdomains: true }]);
    expectSuccess(await server.api.delete(owner, "/realm/domains/zulip.test"));
  });

  test("owners only; no credentials refused; nothing written", async () => {
    const { owner, admin, moderator, member, guest, bot } = server.fixtures;
    for (const who of [admin, moderator, member, guest, bot]) {
      expectError(await add(who, "nope.test"), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    }
    expectError(await add(null, "nope.test"), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.get(null, "/realm/domains"), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await listed(), []);
    expectSuccess(await add(owner, "kept.test"));
    expectError(await server.api.patch(admin, "/realm/domains/kept.test", { allow_subdomains: true }), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    expectError(await server.api.delete(admin, "/realm/domains/kept.test"), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    expectError(await server.api.delete(null, "/realm/domains/kept.test"), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await listed(), [{ domain: "kept.test", allow_subdomains: false }]);
    expectSuccess(await server.api.delete(owner, "/realm/domains/kept.test"));
  });

  test("upstream's validation and wording", async () => {
    const { owner } = server.fixtures;
    const invalid = async (domain: string, why: string) => expectError(await add(owner, domain), "BAD_REQUEST", `Invalid domain: ${why}`);
    await invalid("", "Domain can't be empty.");
    await invalid("   ", "Domain can't be empty.");
    await invalid("localhost", "Domain must have at least one dot (.)");
    await invalid(`${"a".repeat(251)}.test`, "Domain is too long");
    await invalid(".example.org", "Domain cannot start or end with a dot (.)");
    await invalid("example.org.", "Domain cannot start or end with a dot (.)");
    await invalid("example..org", "Consecutive '.' are not allowed.");
    await invalid("-example.org", "Subdomains cannot start or end with a '-'.");
    await invalid("example-.org", "Subdomains cannot start or end with a '-'.");
    await invalid("exa_mple.org", "Domain can only have letters, numbers, '.' and '-'s.");
    await invalid("exämple.org", "Domain can only have letters, numbers, '.' and '-'s.");
    expectError(await server.api.post(owner, "/realm/domains", { domain: "x.test" }), "REQUEST_VARIABLE_MISSING", "Missing 'allow_subdomains' argument");
    expectError(await server.api.post(owner, "/realm/domains", { allow_subdomains: true }), "REQUEST_VARIABLE_MISSING", "Missing 'domain' argument");
    assert.deepEqual(await listed(), []);
    expectSuccess(await add(owner, "sub-domain.example.org"));
    expectError(await add(owner, "SUB-domain.example.org"), "BAD_REQUEST", "The domain sub-domain.example.org is already a part of your organization.");
    expectError(await server.api.patch(owner, "/realm/domains/other.test", { allow_subdomains: true }), "BAD_REQUEST", "No entry found for domain other.test.");
    expectError(await server.api.patch(owner, "/realm/domains/sub-domain.example.org", {}), "REQUEST_VARIABLE_MISSING", "Missing 'allow_subdomains' argument");
    expectError(await server.api.delete(owner, "/realm/domains/other.test"), "BAD_REQUEST", "No entry found for domain other.test.");
    expectSuccess(await server.api.delete(owner, "/realm/domains/sub-domain.example.org"));
  });

  test("removing the last domain turns emails_restricted_to_domains off, with its realm event", async () => {
    const { owner, member } = server.fixtures;
    expectSuccess(await add(owner, "one.test"));
    expectSuccess(await add(owner, "two.test"));
    expectSuccess(await server.api.patch(owner, "/realm", { emails_restricted_to_domains: true }));
    const queue = await registerQueue(server.api, member, { event_types: ["realm_domains", "realm"] });
    expectSuccess(await server.api.delete(owner, "/realm/domains/one.test"));
    expectSuccess(await server.api.delete(owner, "/realm/domains/two.test"));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [
      { type: "realm_domains", op: "remove", domain: "one.test" },
      { type: "realm", op: "update", property: "emails_restricted_to_domains", value: false },
      { type: "realm_domains", op: "remove", domain: "two.test" },
    ]);
    const { state } = await registerQueue(server.api, member, { fetch_event_types: ["realm"] });
    assert.equal(state.realm_emails_restricted_to_domains, false);
  });
});
