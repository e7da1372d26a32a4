/**
 * The browser API (issue 14): GET /json/session, POST /json/login and /json/logout, every
 * /api/v1 endpoint under /json with the session cookie, Django's double-submit CSRF check, and
 * sessions kept in the database (logout, deactivation, password change, expiry, restart).
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { expectError, expectSuccess, type ApiResponse, type Credentials } from "../helpers/client.ts";
import { countRows } from "../helpers/db.ts";
import { startServerOnStore, type TestServer } from "../helpers/server.ts";
import { fetchRaw, uploadFile } from "./uploads-support.ts";
import { NO_AUTH, WRONG_LOGIN } from "../helpers/errors.ts";
import { describeEachStore } from "../helpers/suite.ts";

const LOGIN_LIMIT = 3;
const PER_USER_LIMIT = 10_000;
const SESSION_DAYS = 2;
const DAY_SECONDS = 24 * 60 * 60;
const CSRF_HEADER_INCORRECT = "CSRF token from the 'X-Csrftoken' HTTP header incorrect.";

type BrowserResponse = ApiResponse & { cookies: string[] };
type BrowserOptions = { csrf?: string | null; headers?: Record<string, string>; json?: boolean };

/** A browser's view of the server: a cookie jar, and the CSRF header taken from it on writes (as web/ does). */
class Browser {
  readonly jar = new Map<string, string>();

  constructor(private readonly server: TestServer) {}

  /** A request to `path` (under the site root) with the jar's cookies; `csrf: null` sends no header. */
  async request(method: string, path: string, params: Record<string, unknown> = {}, opts: BrowserOptions = {}): Promise<BrowserResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.jar.size > 0 && headers.cookie === undefined) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const csrf = opts.csrf === undefined ? this.jar.get("csrftoken") : opts.csrf;
    if (method !== "GET" && csrf !== undefined && csrf !== null) headers["x-csrftoken"] = csrf;
    const pairs = Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]);
    let url = `${this.server.url}${path}`;
    let body: string | undefined;
    if (method === "GET") {
      if (pairs.length > 0) url += `?${new URLSearchParams(pairs)}`;
    } else if (opts.json) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(params);
    } else {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(pairs).toString();
    }
    const res = await fetch(url, { method, headers, body });
    const cookies = res.headers.getSetCookie();
    for (const cookie of cookies) {
      const [pair] = cookie.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      if (/Max-Age=0\b/.test(cookie)) this.jar.delete(name);
      else this.jar.set(name, pair.slice(eq + 1));
    }
    return { status: res.status, body: JSON.parse(await res.text()), headers: res.headers, cookies };
  }

  get(path: string, params?: Record<string, unknown>, opts?: BrowserOptions) {
    return this.request("GET", path, params, opts);
  }
  post(path: string, params?: Record<string, unknown>, opts?: BrowserOptions) {
    return this.request("POST", path, params, opts);
  }

  /** Fetches the CSRF cookie and logs in; asserts success. */
  async logIn(user: { email: string; password: string }): Promise<Record<string, unknown>> {
    if (!this.jar.has("csrftoken")) expectSuccess(await this.get("/json/session"));
    return expectSuccess(await this.post("/json/login", { username: user.email, password: user.password }));
  }
}

/** The Set-Cookie line of `name`, split into its attributes (lower-cased names). */
function cookieAttributes(res: BrowserResponse, name: string): Map<string, string> {
  const line = res.cookies.find((c) => c.startsWith(`${name}=`));
  assert.ok(line, `no ${name} cookie in ${JSON.stringify(res.cookies)}`);
  return new Map(line.split(";").map((part) => {
    const [k, ...v] = part.trim().split("=");
    return [k.toLowerCase(), v.join("=")];
  }));
}

function expectCsrfError(res: ApiResponse, reason: string): void {
  expectError(res, "CSRF_FAILED", `CSRF error: ${reason}`, 403);
  assert.equal(res.body.reason, reason);
}

describeEachStore("browser sessions and /json", {
  env: {
    LOGIN_RATE_LIMIT: String(LOGIN_LIMIT), LOGIN_RATE_WINDOW_SECONDS: "600", RATE_LIMIT_API_PER_USER: String(PER_USER_LIMIT), RATE_LIMIT_API_PER_IP: "10000",
    SESSION_DAYS: String(SESSION_DAYS),
  },
}, (server) => {
  let made = 0;
  /** A fresh member with a password, for tests that deactivate or lock it. */
  async function newUser(): Promise<Credentials & { id: number; password: string }> {
    made += 1;
    const email = `browser${made}@example.com`;
    const password = `pw-${made}-secret`;
    const { owner } = server.fixtures;
    const id = expectSuccess(await server.api.post(owner, "/users", { email, password, full_name: `Browser ${made}` })).user_id as number;
    const key = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: email, password })).api_key as string;
    return { id, email, apiKey: key, password };
  }

  before(async () => {
    expectSuccess(await server.api.post(server.fixtures.member, "/users/me/subscriptions", { subscriptions: [{ name: "browsing" }] }));
  });

  test("GET /json/session without a session: no user, and the CSRF cookie (readable by script, SameSite=Lax, site-wide)", async () => {
    const browser = new Browser(server);
    const res = await browser.get("/json/session");
    assert.deepEqual(expectSuccess(res), { result: "success", msg: "", csrf_token: browser.jar.get("csrftoken"), user: null, email_sending: false });
    const attrs = cookieAttributes(res, "csrftoken");
    assert.match(attrs.get("csrftoken") ?? "", /^[A-Za-z0-9]{32}$/);
    assert.equal(attrs.get("path"), "/");
    assert.equal(attrs.get("samesite"), "Lax");
    assert.ok(!attrs.has("httponly") && !attrs.has("secure"));
    // The cookie is kept: the next answer names the same token and sets nothing.
    const again = await browser.get("/json/session");
    assert.equal(expectSuccess(again).csrf_token, attrs.get("csrftoken"));
    assert.deepEqual(again.cookies, []);
  });

  test("POST /json/login: the session cookie (HttpOnly, Lax, SESSION_DAYS), a new CSRF token, the user and never the API key", async () => {
    const { member } = server.fixtures;
    const browser = new Browser(server);
    expectSuccess(await browser.get("/json/session"));
    const before = browser.jar.get("csrftoken");
    const res = await browser.post("/json/login", { username: member.email, password: member.password });
    const body = expectSuccess(res);
    const user = { user_id: member.id, email: member.email, full_name: member.fullName };
    assert.deepEqual(body, { result: "success", msg: "", ...user, csrf_token: browser.jar.get("csrftoken"), user });
    assert.notEqual(browser.jar.get("csrftoken"), before);
    const session = cookieAttributes(res, "sessionid");
    assert.match(session.get("sessionid") ?? "", /^[A-Za-z0-9]{32}$/);
    assert.deepEqual([session.get("path"), session.get("samesite"), session.get("max-age")], ["/", "Lax", String(SESSION_DAYS * DAY_SECONDS)]);
    assert.ok(session.has("httponly") && !session.has("secure"));
    assert.ok(!JSON.stringify(body).includes(member.apiKey));
    const state = expectSuccess(await browser.get("/json/session"));
    assert.deepEqual(state.user, user);
    assert.ok(!JSON.stringify(state).includes(member.apiKey));
  });

  test("POST /json/login takes a JSON body too; the browser's previous session ends", async () => {
    const { moderator } = server.fixtures;
    const browser = new Browser(server);
    expectSuccess(await browser.get("/json/session"));
    expectSuccess(await browser.post("/json/login", { username: moderator.email, password: moderator.password }, { json: true }));
    const first = browser.jar.get("sessionid");
    expectSuccess(await browser.post("/json/login", { username: moderator.email, password: moderator.password }));
    assert.notEqual(browser.jar.get("sessionid"), first);
    const old = new Browser(server);
    old.jar.set("sessionid", first ?? "");
    expectError(await old.get("/json/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("wrong credentials: POST /fetch_api_key's status, code and message, and no session", async () => {
    const { guest, bot } = server.fixtures;
    const browser = new Browser(server);
    expectSuccess(await browser.get("/json/session"));
    for (const [username, password] of [[guest.email, "not-it"], ["stranger@example.com", "x"], [bot.email, ""], ["not an email", "x"]]) {
      const viaApi = await server.api.post(null, "/fetch_api_key", { username, password });
      const viaJson = await browser.post("/json/login", { username, password });
      assert.equal(viaJson.status, viaApi.status);
      assert.deepEqual(viaJson.body, viaApi.body);
      assert.ok(!browser.jar.has("sessionid"));
    }
    expectError(await browser.post("/json/login", { username: guest.email }), "REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
    // The failures above counted toward the guest's limit; a success clears it.
    expectSuccess(await browser.post("/json/login", { username: guest.email, password: guest.password }));
  });

  test("a deactivated account: refused at login as by /fetch_api_key, and its open sessions end", async () => {
    const user = await newUser();
    const browser = new Browser(server);
    await browser.logIn(user);
    expectSuccess(await browser.get("/json/users/me"));
    expectSuccess(await server.api.delete(server.fixtures.admin, `/users/${user.id}`));
    expectError(await browser.get("/json/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
    assert.equal(expectSuccess(await browser.get("/json/session")).user, null);
    const viaApi = await server.api.post(null, "/fetch_api_key", { username: user.email, password: user.password });
    const viaJson = await browser.post("/json/login", { username: user.email, password: user.password });
    expectError(viaJson, "USER_DEACTIVATED", "Account is deactivated", 401);
    assert.deepEqual(viaJson.body, viaApi.body);
  });

  test("failed logins share POST /fetch_api_key's per-username limit (429 even for the right password)", async () => {
    const user = await newUser();
    const browser = new Browser(server);
    expectSuccess(await browser.get("/json/session"));
    expectError(await browser.post("/json/login", { username: user.email, password: "wrong" }), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
    expectError(await server.api.post(null, "/fetch_api_key", { username: user.email, password: "wrong" }), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
    expectError(await browser.post("/json/login", { username: user.email, password: "wrong" }), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
    const limited = await browser.post("/json/login", { username: user.email, password: user.password });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, "RATE_LIMIT_HIT");
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    assert.ok(!browser.jar.has("sessionid"));
    assert.equal((await server.api.post(null, "/fetch_api_key", { username: user.email, password: user.password })).status, 429);
  });

  describe("the CSRF check", () => {
    let browser: Browser;
    before(async () => {
      browser = new Browser(server);
      await browser.logIn(server.fixtures.member);
    });

    test("POST, PATCH and DELETE without the header, with another value, or without the cookie: 403, nothing done", async () => {
      const token = browser.jar.get("csrftoken") ?? "";
      const writes: Array<[string, string, Record<string, unknown>]> = [
        ["POST", "/json/messages", { type: "stream", to: "browsing", topic: "csrf", content: "forged" }],
        ["PATCH", "/json/settings", { full_name: "Forged Name" }],
        ["DELETE", "/json/users/me/subscriptions", { subscriptions: ["browsing"] }],
      ];
      const before = await countRows(server, ["messages"]);
      for (const [method, path, params] of writes) {
        expectCsrfError(await browser.request(method, path, params, { csrf: null }), "CSRF token missing.");
        expectCsrfError(await browser.request(method, path, params, { csrf: token.replace(/^./, (c) => (c === "a" ? "b" : "a")) }), CSRF_HEADER_INCORRECT);
        expectCsrfError(await browser.request(method, path, params, { csrf: "short" }), "CSRF token from the 'X-Csrftoken' HTTP header has incorrect length.");
        const noCookie = await browser.request(method, path, params, { headers: { cookie: `sessionid=${browser.jar.get("sessionid")}` } });
        expectCsrfError(noCookie, "CSRF cookie not set.");
        // The refusal hands out a cookie, so the app can try again.
        assert.ok(noCookie.cookies.some((c) => c.startsWith("csrftoken=")));
        browser.jar.set("csrftoken", token);
      }
      assert.deepEqual(await countRows(server, ["messages"]), before);
      assert.equal(expectSuccess(await browser.get("/json/users/me")).full_name, server.fixtures.member.fullName);
    });

    test("a page of another origin is refused; this site's origin passes", async () => {
      const params = { type: "stream", to: "browsing", topic: "csrf", content: "origin" };
      const evil = await browser.post("/json/messages", params, { headers: { origin: "https://evil.example" } });
      expectCsrfError(evil, "Origin checking failed - https://evil.example does not match any trusted origins.");
      expectSuccess(await browser.post("/json/messages", params, { headers: { origin: server.url } }));
    });

    test("login and logout are checked too; GET needs no header", async () => {
      const fresh = new Browser(server);
      expectCsrfError(await fresh.post("/json/login", { username: "member@example.com", password: "x" }), "CSRF cookie not set.");
      expectCsrfError(await fresh.post("/json/login", { username: "member@example.com", password: "x" }, { csrf: null }), "CSRF token missing.");
      expectCsrfError(await browser.post("/json/logout", {}, { csrf: null }), "CSRF token missing.");
      expectSuccess(await browser.get("/json/messages", { anchor: "newest", num_before: 1, num_after: 0 }, { csrf: null }));
      expectSuccess(await browser.get("/json/users/me"));
    });
  });

  describe("every /api/v1 endpoint under /json, with the session", () => {
    let browser: Browser;
    before(async () => {
      browser = new Browser(server);
      await browser.logIn(server.fixtures.member);
    });

    test("a message sent through /json; GET /json/messages answers as GET /api/v1/messages", async () => {
      const { member } = server.fixtures;
      const sent = expectSuccess(await browser.post("/json/messages", { type: "stream", to: "browsing", topic: "browser", content: "from the **web**" }));
      const narrow = { anchor: sent.id, num_before: 2, num_after: 0, narrow: [{ operator: "channel", operand: "browsing" }] };
      const viaJson = expectSuccess(await browser.get("/json/messages", narrow));
      const viaApi = expectSuccess(await server.api.get(member, "/messages", narrow));
      assert.deepEqual(viaJson, viaApi);
      const last = viaJson.messages.at(-1);
      assert.deepEqual([last.id, last.sender_id, last.content], [sent.id, member.id, "<p>from the <strong>web</strong></p>"]);
      assert.deepEqual(expectSuccess(await browser.get("/json/users/me")), expectSuccess(await server.api.get(member, "/users/me")));
    });

    test("POST /json/register and a long poll of GET /json/events get the event of a message sent meanwhile", async () => {
      const { owner } = server.fixtures;
      const queue = expectSuccess(await browser.post("/json/register", { event_types: ["message"] }));
      assert.ok(!JSON.stringify(queue).includes(server.fixtures.member.apiKey));
      const poll = browser.get("/json/events", { queue_id: queue.queue_id, last_event_id: queue.last_event_id });
      await new Promise((r) => setTimeout(r, 200));
      const sent = expectSuccess(await server.api.post(owner, "/messages", { type: "stream", to: "browsing", topic: "browser", content: "wake up" }));
      const events = expectSuccess(await poll).events as Array<{ type: string; message?: { id: number } }>;
      assert.deepEqual(events.map((e) => [e.type, e.message?.id]), [["message", sent.id]]);
    });

    test("an unauthenticated endpoint answers without a session; integrations' URLs are not under /json", async () => {
      const anonymous = new Browser(server);
      assert.deepEqual(expectSuccess(await anonymous.get("/json/server_settings")), expectSuccess(await server.api.get(null, "/server_settings")));
      expectError(await anonymous.get("/json/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
      expectError(await browser.post("/json/external/json", { api_key: server.fixtures.bot.apiKey }), "NOT_FOUND", "Endpoint does not exist", 404);
    });

    test("the same per-user rate limit: /json and /api/v1 calls count in one bucket", async () => {
      const { member } = server.fixtures;
      const a = await browser.get("/json/users/me");
      const b = await server.api.get(member, "/users/me");
      const c = await browser.get("/json/users/me");
      assert.equal(a.headers.get("x-ratelimit-limit"), String(PER_USER_LIMIT));
      const remaining = [a, b, c].map((r) => Number(r.headers.get("x-ratelimit-remaining")));
      assert.deepEqual(remaining, [remaining[0], remaining[0] - 1, remaining[0] - 2]);
    });

    test("HTTP Basic does not authenticate /json, not even beside a bad session", async () => {
      const { member } = server.fixtures;
      const basic = `Basic ${Buffer.from(`${member.email}:${member.apiKey}`).toString("base64")}`;
      const stranger = new Browser(server);
      expectError(await stranger.get("/json/users/me", {}, { headers: { authorization: basic } }), "UNAUTHORIZED", NO_AUTH, 401);
      stranger.jar.set("sessionid", "A".repeat(32));
      expectError(await stranger.get("/json/users/me", {}, { headers: { authorization: basic } }), "UNAUTHORIZED", NO_AUTH, 401);
      stranger.jar.set("sessionid", "not-a-session");
      expectError(await stranger.get("/json/users/me", {}, { headers: { authorization: basic } }), "UNAUTHORIZED", NO_AUTH, 401);
    });

    test("an upload is served to the session's browser (images load by URL), and to nobody without credentials", async () => {
      const { member } = server.fixtures;
      const url = expectSuccess(await uploadFile(server, member, "note.txt", "for the browser")).url as string;
      const res = await fetch(`${server.url}${url}`, { headers: { cookie: `sessionid=${browser.jar.get("sessionid")}` } });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), "for the browser");
      assert.equal((await fetchRaw(server, null, url)).status, 401);
      assert.equal((await fetchRaw(server, member, url)).status, 200);
    });
  });

  test("POST /json/logout ends the session and clears the cookie", async () => {
    const browser = new Browser(server);
    await browser.logIn(server.fixtures.admin);
    const sessionId = browser.jar.get("sessionid");
    const res = await browser.post("/json/logout");
    assert.deepEqual(expectSuccess(res), { result: "success", msg: "" });
    assert.equal(cookieAttributes(res, "sessionid").get("max-age"), "0");
    assert.ok(!browser.jar.has("sessionid"));
    const replay = new Browser(server);
    replay.jar.set("sessionid", sessionId ?? "");
    expectError(await replay.get("/json/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
    // Logging out again, without a session, is fine.
    expectSuccess(await browser.post("/json/logout"));
  });

  test("a password change ends the user's other sessions and keeps the one that made it", async () => {
    const user = await newUser();
    const [here, elsewhere] = [new Browser(server), new Browser(server)];
    await here.logIn(user);
    await elsewhere.logIn(user);
    expectSuccess(await here.request("PATCH", "/json/settings", { old_password: user.password, new_password: "a-new-secret" }));
    expectSuccess(await here.get("/json/users/me"));
    expectError(await elsewhere.get("/json/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
    // A change through the API key ends every session.
    expectSuccess(await server.api.patch(user, "/settings", { old_password: "a-new-secret", new_password: "third-secret" }));
    expectError(await here.get("/json/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("a session expires after SESSION_DAYS; the next login sweeps expired rows", async () => {
    const user = await newUser();
    const browser = new Browser(server);
    await browser.logIn(user);
    const rowsBefore = (await countRows(server, ["sessions"])).sessions;
    await server.advanceClock(SESSION_DAYS * DAY_SECONDS - 60);
    expectSuccess(await browser.get("/json/users/me"));
    await server.advanceClock(120);
    expectError(await browser.get("/json/users/me"), "UNAUTHORIZED", NO_AUTH, 401);
    await browser.logIn(user);
    assert.equal((await countRows(server, ["sessions"])).sessions, 1);
    assert.ok(rowsBefore > 1);
  });

  test("a session survives a restart; on an https site the cookies are Secure; no key or session id is logged", async () => {
    const { member } = server.fixtures;
    const browser = new Browser(server);
    await browser.logIn(member);
    const sessionId = browser.jar.get("sessionid") ?? "";
    const logged = server.output();
    await server.stopProcess();
    server.replace(await startServerOnStore(server.store, server.fixtures, { RATE_LIMITS: "off", EXTERNAL_URL: "https://parley.example.com" }));
    const after = new Browser(server);
    after.jar.set("sessionid", sessionId);
    assert.equal(expectSuccess(await after.get("/json/users/me")).user_id, member.id);
    const again = new Browser(server);
    expectSuccess(await again.get("/json/session"));
    const login = await again.post("/json/login", { username: member.email, password: member.password });
    expectSuccess(login);
    assert.ok(cookieAttributes(login, "sessionid").has("secure") && cookieAttributes(login, "csrftoken").has("secure"));
    for (const secret of [member.apiKey, member.password, sessionId]) {
      assert.ok(!logged.includes(secret) && !server.output().includes(secret), "a credential reached the log");
    }
  });
});
