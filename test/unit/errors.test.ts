/** src/errors.ts: our error codes equal SPEC.md's, plus codes the OpenAPI file or a stated reason justifies. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ERROR_CODES } from "../../src/errors.ts";

// The shared documents live next to the repository, as test/helpers/openapi.ts expects.
const here = path.dirname(fileURLToPath(import.meta.url));
const SPEC = fs.readFileSync(process.env.SPEC_FILE ?? path.resolve(here, "../../../shared/SPEC.md"), "utf8");
const OPENAPI = fs.readFileSync(process.env.OPENAPI_FILE ?? path.resolve(here, "../../../shared/zulip-openapi.yaml"), "utf8");

/** Codes we return that neither SPEC.md nor the OpenAPI file names, each with why it exists. */
const ALLOWLIST: Record<string, string> = {
  REQUEST_CONFUSING_VAR: "Zulip's request layer (typed_endpoint) code for a parameter sent with its alias (topic and subject); STYLE.md requires it",
  NOT_FOUND: "the JSON 404 envelope for unknown /api/v1 routes (the issue forbids HTML 404 pages); not an upstream code",
  INTERNAL_SERVER_ERROR: "the envelope of unexpected 500s, so even a crash answers with JSON",
  BAD_NARROW: "Zulip's BadNarrowOperatorError (zerver/lib/narrow.py) for an invalid narrow term in GET /messages and flag updates by narrow",
  INCOMPATIBLE_PARAMETERS: "Zulip's IncompatibleParametersError (zerver/lib/exceptions.py), e.g. anchor with message_ids in GET /messages",
  CHANNEL_ALREADY_EXISTS: "Zulip's ChannelExistsError (409) for POST /channels/create with a taken name (FL 417; in the FL 420 OpenAPI file, not the FL 372 one)",
  INVALID_INVITE: "an invitation link (GET /invites/accept/{token}, POST .../register, for the web app's sign-up page) that is unknown, expired, revoked or used; upstream answers those with an HTML page, so it has no API code",
  CSRF_FAILED: "Zulip's CsrfFailureError (zerver/middleware.py): a /json request that may change something without Django's CSRF cookie and header; the OpenAPI files describe only /api/v1",
  AUTHENTICATION_FAILED: "Zulip's AuthenticationFailedError (zerver/lib/exceptions.py) for POST /fetch_api_key with a wrong password; the OpenAPI file documents the endpoint but not this error",
};

/** The code column of SPEC.md's "## Errors" table. */
function specErrorCodes(): string[] {
  const start = SPEC.indexOf("\n## Errors");
  assert.ok(start >= 0, "SPEC.md has an Errors section");
  const end = SPEC.indexOf("\n## ", start + 1);
  const section = SPEC.slice(start, end < 0 ? undefined : end);
  const codes = [...section.matchAll(/^\|\s*`?([A-Z][A-Z0-9_]+)`?\s*\|/gm)].map((m) => m[1]);
  return codes;
}

function inOpenApi(code: string): boolean {
  return new RegExp(`\\b${code}\\b`).test(OPENAPI);
}

describe("error codes", () => {
  const defined = new Set<string>(ERROR_CODES);

  test("SPEC.md's Errors table parses to a plausible list", () => {
    const codes = specErrorCodes();
    assert.ok(codes.length >= 10, `found ${codes.join(", ")}`);
    assert.ok(codes.includes("BAD_REQUEST") && codes.includes("UNAUTHORIZED"));
  });

  test("every code SPEC.md lists is defined", () => {
    assert.deepEqual(specErrorCodes().filter((c) => !defined.has(c)), []);
  });

  test("every other code we define is in the OpenAPI file or the allowlist", () => {
    const spec = new Set(specErrorCodes());
    const unexplained = ERROR_CODES.filter((c) => !spec.has(c) && !inOpenApi(c) && !(c in ALLOWLIST));
    assert.deepEqual(unexplained, []);
  });

  test("the allowlist holds only defined codes that need it", () => {
    const spec = new Set(specErrorCodes());
    const stale = Object.keys(ALLOWLIST).filter((c) => !defined.has(c) || spec.has(c) || inOpenApi(c));
    assert.deepEqual(stale, []);
  });

  test("codes are unique", () => {
    assert.equal(defined.size, ERROR_CODES.length);
  });
});
