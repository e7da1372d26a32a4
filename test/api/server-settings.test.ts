/** GET /server_settings, authentication and the request conventions shared by every endpoint. */
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { describeEachStore } from "../helpers/suite.ts";

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

describeEachStore("server settings and auth", { env: { MAX_BODY_BYTES: "4096" } }, (server) => {
  test("GET /server_settings needs no credentials and advertises the feature level", async () => {
    const body = expectSuccess(await server.api.get(null, "/server_settings"));
    assert.equal(body.zulip_feature_level, 420);
    // Level 420 is a level of Zulip 11.0's development series (upstream's API changelog); Parley's release follows a `+`.
    assert.equal(body.zulip_version, `11.0-dev+parley-${PACKAGE_VERSION}`);
    assert.equal(body.zulip_merge_base, body.zulip_version);
    assert.equal(body.realm_name, "Test Org");
    assert.equal(body.realm_url, server.url);
    assert.equal(body.realm_uri, server.url);
    assert.equal(body.push_notifications_enabled, false);
    assert.equal(body.authentication_methods.password, true);
  });

  test("unknown parameters are listed in ignored_parameters_unsupported", async () => {
    const body = expectSuccess(await server.api.get(null, "/server_settings", { bogus: "1", other: 2 }));
    assert.deepEqual(body.ignored_parameters_unsupported, ["bogus", "other"]);
  });

  test("unknown routes get a JSON 404 envelope", async () => {
    expectError(await server.api.get(null, "/no/such/route"), "NOT_FOUND", "Endpoint does not exist", 404);
  });

  test("a body over MAX_BODY_BYTES is refused with the envelope", async () => {
    const res = await server.api.post(null, "/__test/advance_clock", { seconds: "0", pad: "x".repeat(5000) });
    expectError(res, "BAD_REQUEST", "Request body too large (limit: 4096 bytes)", 413);
  });

  test("malformed parameters get Zulip's wording", async () => {
    expectError(await server.api.post(null, "/__test/advance_clock", {}), "REQUEST_VARIABLE_MISSING", "Missing 'seconds' argument");
    expectError(await server.api.post(null, "/__test/advance_clock", { seconds: "soon" }), "BAD_REQUEST", "seconds is not an integer");
  });
});
