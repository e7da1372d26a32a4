/**
 * The API's rate limits as Fastify hooks (README.md "Rate limits"; Zulip's RATE_LIMITING_RULES):
 * each API request is charged to one bucket before its body is read. A request with credentials
 * (on a route that takes them: the API key under /api/v1, the session cookie under /json) is
 * checked here, then charged to its user (api_by_user); a request without, or whose
 * credentials fail, is charged to its client address (api_by_ip), so failed
 * authentication costs the address what unauthenticated requests cost it, and a failure past the
 * limit answers 429 instead of 401. Password logins are unauthenticated requests, and also count
 * per username in actions/users/fetch-api-key.ts. Every limited response carries Zulip's
 * X-RateLimit-Limit / -Remaining / -Reset headers; a refusal is 429 RATE_LIMIT_HIT with
 * `retry-after` and the Retry-After header.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { Clock } from "../clock.ts";
import { JsonableError, RateLimitedError } from "../errors.ts";
import type { RateLimits, RateLimitState } from "../rate-limit.ts";
import type { Database } from "../store/schema/database.ts";
import { checkCredentials, hasCredentials, type CredentialSource } from "./auth.ts";
import type { App, Endpoint } from "./endpoint.ts";
import { jsonPath } from "./session.ts";
import { SESSION_ROUTES } from "./session-routes.ts";

/**
 * How a route reads credentials, as app.ts authenticates its endpoints, and where (header or
 * session cookie); `sendsEmail`: it mails an address it is given (sends_email_by_ip).
 */
type AuthMode = { auth: Endpoint["auth"]; source: CredentialSource; sendsEmail?: true };

/** What the hooks know of one request. */
type Charge = {
  /** The bucket it was charged to, or null when the counters were unavailable (fail open). */
  state: RateLimitState | null;
  /** Set when it was refused (by any rule): the end of the wait, in ms since the epoch. */
  refusedUntilMs: number | null;
};

// Routes outside the endpoint list (http/routes/files.ts) that take API credentials like an
// endpoint; the other file routes (signed temporary links, public emoji images) are not limited.
const CREDENTIAL_FILE_ROUTES: ReadonlyMap<string, AuthMode> = new Map([
  ["GET /user_uploads/:realm_id_str/*", { auth: "user", source: "either" }],
  ["GET /user_uploads/thumbnail/*", { auth: "user", source: "either" }],
]);

// Test-only routes (PARLEY_TEST_CONTROL): driving the clock must not spend a test's budget.
const TEST_CONTROL_PREFIX = "/api/v1/__test/";

/** "METHOD url pattern" of each limited route, with how it authenticates. */
function limitedRoutes(endpoints: Endpoint[]): Map<string, AuthMode> {
  const modes = new Map(CREDENTIAL_FILE_ROUTES);
  for (const endpoint of endpoints) {
    const url = `/api/v1${endpoint.path}`;
    if (url.startsWith(TEST_CONTROL_PREFIX)) continue;
    const sendsEmail = endpoint.sendsEmail;
    modes.set(`${endpoint.method} ${url}`, { auth: endpoint.auth, source: "basic", sendsEmail });
    // The browser's copy counts the same, its caller named by the session.
    const browserUrl = jsonPath(endpoint);
    if (browserUrl !== null) modes.set(`${endpoint.method} ${browserUrl}`, { auth: endpoint.auth, source: "session", sendsEmail });
  }
  for (const route of SESSION_ROUTES) modes.set(`${route.method} ${route.url}`, { auth: "none", source: "session" });
  return modes;
}

/**
 * Sets the X-RateLimit-* headers on the raw response: Node adds them to whatever writes the
 * head, Fastify's send or an answer written past it (http/app.ts writeDirectly).
 */
function setHeaders(reply: FastifyReply, charge: Charge): void {
  const { state, refusedUntilMs } = charge;
  if (!state) return;
  const resetMs = Math.max(state.resetMs, refusedUntilMs ?? 0);
  reply.raw.setHeader("x-ratelimit-limit", String(state.limit));
  reply.raw.setHeader("x-ratelimit-remaining", String(refusedUntilMs === null ? state.remaining : 0));
  reply.raw.setHeader("x-ratelimit-reset", String(Math.ceil(resetMs / 1000)));
}

/** What the hooks need from the app. */
type RateLimitDeps = { rateLimits: RateLimits; store: { reader: Kysely<Database> }; endpoints: Endpoint[]; clock: Clock };

/** Adds the rate-limit hooks to the app (nothing with RATE_LIMITS=off). `host`: the email domain. */
export function registerRateLimits(app: App, deps: RateLimitDeps, host: string): void {
  const { rateLimits: limits, store, clock } = deps;
  if (!limits.enabled) return;
  const authEnv = { db: store.reader, host, clock };
  const modes = limitedRoutes(deps.endpoints);
  const charges = new WeakMap<FastifyRequest, Charge>();
  const sendsEmail = new WeakSet<FastifyRequest>();

  // The headers go on the response as soon as the request is charged (an answer written past
  // Fastify's send, as GET /events' long polls are, carries the headers set by then); a refusal
  // sets them again (onError).
  app.addHook("onRequest", async (req, reply) => {
    const url = req.routeOptions.url;
    const mode = url === undefined ? undefined : modes.get(`${req.method === "HEAD" ? "GET" : req.method} ${url}`);
    if (mode === undefined) return;
    const charge: Charge = { state: null, refusedUntilMs: null };
    charges.set(req, charge);
    /** Records the bucket's state, puts its headers on the response, and refuses past the limit. */
    const charged = (state: RateLimitState | null): void => {
      charge.state = state;
      setHeaders(reply, charge);
      if (state?.limited) throw new RateLimitedError(state.retryAfterSeconds);
    };
    if (mode.sendsEmail) {
      // Only a call that mailed counts (onResponse, below), as upstream counts a valid form: a
      // visitor who mistypes an address does not lose a day's sends. Past the limit, refused here.
      sendsEmail.add(req);
      const state = await limits.sendsEmailByIp.peek(req.ip);
      if (state?.limited) return charged(state);
    }
    // Routes that ignore credentials ("none", e.g. the password logins) charge the address even
    // when some are sent, so an invented header or cookie does not buy a fresh bucket.
    if (mode.auth === "none" || !hasCredentials(req, mode.source)) return charged(await limits.apiByIp.consume(req.ip));
    let userId: number;
    try {
      userId = (await checkCredentials(req, authEnv, mode.source)).user.id;
    } catch (err) {
      if (!(err instanceof JsonableError) || err.status !== 401) throw err;
      charged(await limits.apiByIp.consume(req.ip));
      throw err;
    }
    charged(await limits.apiByUser.consume(String(userId)));
  });

  app.addHook("onResponse", async (req, reply) => {
    if (sendsEmail.has(req) && reply.statusCode === 200) await limits.sendsEmailByIp.consume(req.ip);
  });

  // Runs before the app's error handler, for refusals here and in actions (the login limit).
  app.addHook("onError", async (req, reply, err) => {
    if (!(err instanceof RateLimitedError)) return;
    const retryAfter = Number(err.data["retry-after"]);
    reply.header("retry-after", String(retryAfter));
    const charge = charges.get(req);
    if (charge) {
      charge.refusedUntilMs = clock.nowMs() + retryAfter * 1000;
      setHeaders(reply, charge);
    }
  });
}
