/**
 * Rate limits (README.md "Rate limits", Zulip's RATE_LIMITING_RULES): per user on authenticated
 * requests, per client address on unauthenticated and failed-authentication ones, per username on
 * failed password logins; the 429 envelope and Zulip's headers. Each suite runs with the counters
 * in memory and in Redis (REDIS_URL); small limits and the test clock keep them fast, no sleeps.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { openRateLimits } from "../../src/rate-limit.ts";
import { expectError, expectSuccess, type ApiResponse, type Credentials } from "../helpers/client.ts";
import { getEvents, registerQueue } from "../helpers/events.ts";
import { startServer, startServerOnStore, type TestServer } from "../helpers/server.ts";
import { STORES } from "../helpers/stores.ts";
import { NO_AUTH, WRONG_LOGIN } from "../helpers/errors.ts";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const USER_LIMIT = 4;
const IP_LIMIT = 6;
const LOGIN_LIMIT = 2;
const WINDOW_SECONDS = 60;
const LOGIN_WINDOW_SECONDS = 1800;
const LIMITED = "API usage exceeded rate limit";

const LIMIT_ENV = {
  RATE_LIMIT_API_PER_USER: String(USER_LIMIT),
  RATE_LIMIT_API_PER_USER_WINDOW_SECONDS: String(WINDOW_SECONDS),
  RATE_LIMIT_API_PER_IP: String(IP_LIMIT),
  RATE_LIMIT_API_PER_IP_WINDOW_SECONDS: String(WINDOW_SECONDS),
  LOGIN_RATE_LIMIT: String(LOGIN_LIMIT),
  LOGIN_RATE_WINDOW_SECONDS: String(LOGIN_WINDOW_SECONDS),
};

/** Moves the server's clock past every window; returns the (standing) time of the new windows. */
async function freshWindows(server: TestServer): Promise<number> {
  const res = expectSuccess(await server.api.post(null, "/__test/advance_clock", { seconds: LOGIN_WINDOW_SECONDS + 1 }));
  return res.now_ms;
}

/** A request with any headers (credentials the client helper would not send). */
async function raw(server: TestServer, path: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const res = await fetch(`${server.url}${path}`, { headers });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** Asserts the X-RateLimit-* headers of a window that opened at `startMs`. */
function expectHeaders(res: ApiResponse, limit: number, remaining: number, resetMs: number): void {
  assert.deepEqual(
    {
      limit: res.headers.get("x-ratelimit-limit"),
      remaining: res.headers.get("x-ratelimit-remaining"),
      reset: res.headers.get("x-ratelimit-reset"),
    },
    { limit: String(limit), remaining: String(remaining), reset: String(Math.ceil(resetMs / 1000)) },
  );
}

/** Asserts a refusal exactly: 429, the envelope with `retry-after`, and the Retry-After header. */
function expectLimited(res: ApiResponse, retryAfter: number): void {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.deepEqual(res.body, { result: "error", msg: LIMITED, code: "RATE_LIMIT_HIT", "retry-after": retryAfter });
  assert.equal(res.headers.get("retry-after"), String(retryAfter));
}

const wrongKey = (user: Credentials): Credentials => ({ email: user.email, apiKey: "x".repeat(32) });

for (const kind of STORES) {
  for (const counters of ["memory", "redis"] as const) {
    describe(`rate limits [${kind}, counters in ${counters}]`, () => {
      let server: TestServer;
      let nowMs: number;
      const windowEnd = () => nowMs + WINDOW_SECONDS * 1000;
      const login = (username: string, password: string) => server.api.post(null, "/fetch_api_key", { username, password });

      before(async () => {
        server = await startServer(kind, { ...LIMIT_ENV, ...(counters === "redis" ? { REDIS_URL } : {}) });
      });
      after(async () => {
        await server?.stop();
      });
      beforeEach(async () => {
        nowMs = await freshWindows(server);
      });

      test("every response of an authenticated request carries the user's X-RateLimit-* headers", async () => {
        const { member } = server.fixtures;
        for (let i = 1; i <= USER_LIMIT; i++) {
          const res = await server.api.get(member, "/users/me");
          expectSuccess(res);
          expectHeaders(res, USER_LIMIT, USER_LIMIT - i, windowEnd());
        }
        // Errors too: the request was counted.
        const { admin } = server.fixtures;
        const missing = await server.api.get(admin, "/users/9999");
        expectError(missing, "BAD_REQUEST", "No such user");
        expectHeaders(missing, USER_LIMIT, USER_LIMIT - 1, windowEnd());
      });

      test("a long poll's answer, written when a message wakes it, carries them too, with the length of its bytes", async () => {
        const { member, admin } = server.fixtures;
        const queue = await registerQueue(server.api, member, { event_types: JSON.stringify(["message"]) });
        const poll = getEvents(server.api, member, { queue_id: queue.queueId, last_event_id: queue.lastEventId });
        const content = "h\u00e9llo \u2603 \u{1f389}";
        expectSuccess(await server.api.post(admin, "/messages", { type: "direct", to: JSON.stringify([member.email]), content }));
        const res = await poll;
        const body = expectSuccess(res);
        assert.equal(body.events.length, 1);
        assert.equal(body.events[0].message.content, content);
        assert.equal(res.headers.get("content-length"), String(Buffer.byteLength(JSON.stringify(body))));
        expectHeaders(res, USER_LIMIT, USER_LIMIT - 2, windowEnd());
      });

      test("past the per-user limit: 429 with retry-after and headers, for that user only, until the window ends", async () => {
        const { member, admin } = server.fixtures;
        for (let i = 0; i < USER_LIMIT; i++) expectSuccess(await server.api.get(member, "/users/me"));
        const refused = await server.api.get(member, "/users/me");
        expectLimited(refused, WINDOW_SECONDS);
        expectHeaders(refused, USER_LIMIT, 0, windowEnd());
        // Every endpoint shares the budget; nothing runs (no message is sent).
        expectLimited(await server.api.post(member, "/messages", { type: "stream", to: "general", topic: "t", content: "over" }), WINDOW_SECONDS);
        expectHeaders(expectSuccessHeaders(await server.api.get(admin, "/users/me")), USER_LIMIT, USER_LIMIT - 1, windowEnd());
        await server.advanceClock(WINDOW_SECONDS - 1);
        expectLimited(await server.api.get(member, "/users/me"), 1);
        await server.advanceClock(1);
        const again = await server.api.get(member, "/users/me");
        expectSuccess(again);
        expectHeaders(again, USER_LIMIT, USER_LIMIT - 1, windowEnd() + WINDOW_SECONDS * 1000);
      });

      test("unauthenticated requests are counted per address; authenticated ones are not", async () => {
        for (let i = 1; i <= IP_LIMIT; i++) {
          const res = await server.api.get(null, "/server_settings");
          expectSuccess(res);
          expectHeaders(res, IP_LIMIT, IP_LIMIT - i, windowEnd());
        }
        const refused = await server.api.get(null, "/server_settings");
        expectLimited(refused, WINDOW_SECONDS);
        expectHeaders(refused, IP_LIMIT, 0, windowEnd());
        // Nor does a forged X-Forwarded-For: no proxy is trusted here.
        expectLimited(await raw(server, "/api/v1/server_settings", { "x-forwarded-for": "203.0.113.9" }), WINDOW_SECONDS);
        // An invented header does not buy a fresh bucket on a route that takes no credentials.
        expectLimited(await raw(server, "/api/v1/server_settings", { authorization: `Basic ${Buffer.from("a@b.c:key").toString("base64")}` }), WINDOW_SECONDS);
        expectLimited(await login(server.fixtures.member.email, server.fixtures.member.password), WINDOW_SECONDS);
        const authed = await server.api.get(server.fixtures.member, "/users/me");
        expectSuccess(authed);
        expectHeaders(authed, USER_LIMIT, USER_LIMIT - 1, windowEnd());
      });

      test("failed authentication is counted per address; past the limit it answers 429 instead of 401", async () => {
        const { member, guest } = server.fixtures;
        const res = await server.api.get(wrongKey(member), "/users/me");
        expectError(res, "UNAUTHORIZED", "Invalid API key", 401);
        expectHeaders(res, IP_LIMIT, IP_LIMIT - 1, windowEnd());
        expectError(await raw(server, "/api/v1/users/me", { authorization: "Bearer abc" }), "UNAUTHORIZED", NO_AUTH, 401);
        expectError(await raw(server, "/api/v1/users/me", { authorization: "Basic !!!" }), "UNAUTHORIZED", NO_AUTH, 401);
        expectError(await server.api.get(wrongKey(guest), "/users/me"), "UNAUTHORIZED", "Invalid API key", 401);
        // Requests without credentials share the address's bucket.
        expectError(await server.api.get(null, "/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
        expectSuccess(await server.api.get(null, "/server_settings"));
        const refused = await server.api.get(wrongKey(member), "/users/me");
        expectLimited(refused, WINDOW_SECONDS);
        expectHeaders(refused, IP_LIMIT, 0, windowEnd());
        expectLimited(await server.api.get(null, "/server_settings"), WINDOW_SECONDS);
        // Valid credentials from the same address keep working, under their user's limit.
        expectSuccess(await server.api.get(member, "/users/me"));
        await server.advanceClock(WINDOW_SECONDS);
        expectError(await server.api.get(wrongKey(member), "/users/me"), "UNAUTHORIZED", "Invalid API key", 401);
      });

      test("password logins: failures per username lock it (before the password is checked), and count per address", async () => {
        const { member, moderator } = server.fixtures;
        for (let i = 0; i < LOGIN_LIMIT; i++) expectError(await login(member.email, `guess-${i}`), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
        const locked = await login(member.email, member.password);
        expectLimited(locked, LOGIN_WINDOW_SECONDS);
        // The address's bucket reports the refusal: nothing left until the username's wait ends.
        expectHeaders(locked, IP_LIMIT, 0, nowMs + LOGIN_WINDOW_SECONDS * 1000);
        expectLimited(await login(member.email.toUpperCase(), member.password), LOGIN_WINDOW_SECONDS);
        // Another username is not locked, but every login spends the address's budget.
        const other = await login(moderator.email, moderator.password);
        assert.equal(expectSuccess(other).api_key, moderator.apiKey);
        expectHeaders(other, IP_LIMIT, IP_LIMIT - 5, windowEnd());
        expectSuccess(await login(moderator.email, moderator.password));
        expectLimited(await login(moderator.email, moderator.password), WINDOW_SECONDS);
        await server.advanceClock(WINDOW_SECONDS);
        expectLimited(await login(member.email, member.password), LOGIN_WINDOW_SECONDS - WINDOW_SECONDS);
        await server.advanceClock(LOGIN_WINDOW_SECONDS - WINDOW_SECONDS);
        assert.equal(expectSuccess(await login(member.email, member.password)).api_key, member.apiKey);
      });

      test("file downloads with credentials count against the user", async () => {
        const { member, realmId } = server.fixtures;
        const res = await raw(server, `/user_uploads/${realmId}/ab/missing.txt`, { authorization: `Basic ${Buffer.from(`${member.email}:${member.apiKey}`).toString("base64")}` });
        assert.equal(res.status, 404);
        expectHeaders(res, USER_LIMIT, USER_LIMIT - 1, windowEnd());
      });
    });
  }

  describe(`rate limits shared by two processes through Redis [${kind}]`, () => {
    let first: TestServer;
    let second: TestServer;

    before(async () => {
      first = await startServer(kind, { ...LIMIT_ENV, REDIS_URL });
      second = await startServerOnStore(first.store, first.fixtures, { ...LIMIT_ENV, REDIS_URL });
    });
    after(async () => {
      await second?.stop();
      await first?.stop();
    });

    test("requests to either process spend one budget", async () => {
      const { member } = first.fixtures;
      for (let i = 0; i < USER_LIMIT / 2; i++) {
        expectSuccess(await first.api.get(member, "/users/me"));
        expectSuccess(await second.api.get(member, "/users/me"));
      }
      const refused = await second.api.get(member, "/users/me");
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get("x-ratelimit-remaining"), "0");
      assert.equal((await first.api.get(member, "/users/me")).status, 429);
    });
  });

  describe(`behind a trusted proxy (TRUSTED_PROXIES) [${kind}]`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(kind, { ...LIMIT_ENV, TRUSTED_PROXIES: "127.0.0.1, ::1" });
    });
    after(async () => {
      await server?.stop();
    });

    test("each client address the proxy names has its own per-address budget", async () => {
      const from = (address: string) => raw(server, "/api/v1/server_settings", { "x-forwarded-for": address });
      for (let i = 1; i <= IP_LIMIT; i++) expectSuccess(await from("203.0.113.1"));
      expectLimited(await from("203.0.113.1"), WINDOW_SECONDS);
      // Another client behind the same proxy is not refused for the first one's requests.
      const other = await from("203.0.113.2");
      expectSuccess(other);
      assert.equal(other.headers.get("x-ratelimit-remaining"), String(IP_LIMIT - 1));
    });
  });

  describe(`RATE_LIMITS=off [${kind}]`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(kind, { ...LIMIT_ENV, RATE_LIMITS: "off" });
    });
    after(async () => {
      await server?.stop();
    });

    test("nothing is counted or refused, and no X-RateLimit-* header is sent", async () => {
      const { member } = server.fixtures;
      for (let i = 0; i < USER_LIMIT + IP_LIMIT; i++) {
        const res = await server.api.get(member, "/users/me");
        expectSuccess(res);
        assert.equal(res.headers.get("x-ratelimit-limit"), null);
      }
      for (let i = 0; i < IP_LIMIT + 1; i++) expectError(await server.api.get(wrongKey(member), "/users/me"), "UNAUTHORIZED", "Invalid API key", 401);
      for (let i = 0; i < LOGIN_LIMIT + 1; i++) expectError(await server.api.post(null, "/fetch_api_key", { username: member.email, password: "nope" }), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
      expectSuccess(await server.api.post(null, "/fetch_api_key", { username: member.email, password: member.password }));
    });
  });
}

/** expectSuccess, returning the response (for its headers). */
function expectSuccessHeaders(res: ApiResponse): ApiResponse {
  expectSuccess(res);
  return res;
}

describe("rate limits with Redis unreachable", () => {
  test("requests are let through uncounted and one warning is logged", async () => {
    const warnings: string[] = [];
    const log = { warn: (_obj: object, msg: string) => void warnings.push(msg), info: () => {} };
    const config = {
      rateLimits: { enabled: true, apiByUser: { limit: 1, windowSeconds: 60 }, apiByIp: { limit: 1, windowSeconds: 60 }, authenticateByUsername: { limit: 1, windowSeconds: 60 }, sendsEmailByIp: { limit: 1, windowSeconds: 60 }, passwordResetByEmail: [{ limit: 1, windowSeconds: 60 }], emailChangeByUser: [{ limit: 1, windowSeconds: 60 }] },
      // Port 1: nothing listens there.
      redisUrl: "redis://127.0.0.1:1",
      databaseUrl: null,
      dataDir: "/nonexistent",
    };
    const limits = await openRateLimits(config, new ManualClock(), log);
    try {
      for (let i = 0; i < 3; i++) assert.equal(await limits.apiByUser.consume("7"), null);
      assert.equal(await limits.authenticateByUsername.peek("a@example.com"), null);
      for (let i = 0; i < 3; i++) assert.equal(await limits.passwordResetByEmail.consume("a@example.com"), null);
      await limits.authenticateByUsername.reset("a@example.com");
      assert.equal(warnings.length, 1, warnings.join("\n"));
      assert.match(warnings[0], /not limited/);
    } finally {
      await limits.close();
    }
  });
});
