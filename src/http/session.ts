/**
 * The browser's side of the /json API: the `sessionid` cookie (HttpOnly; which session a request
 * belongs to) and Django's double-submit CSRF check (the `csrftoken` cookie, readable by script,
 * sent back in the `X-CSRFToken` header of every request that may change something). A page of
 * another site cannot read the cookie, so it cannot send the header.
 */
import crypto from "node:crypto";
import type { FastifyReply, FastifyRequest, onSendHookHandler } from "fastify";
import { CsrfFailedError } from "../errors.ts";
import { randomAlphanumeric } from "../secrets.ts";
import type { App, Endpoint } from "./endpoint.ts";

/** The session cookie's name (Django's SESSION_COOKIE_NAME). */
export const SESSION_COOKIE = "sessionid";
/** The CSRF cookie's name (Django's CSRF_COOKIE_NAME). */
export const CSRF_COOKIE = "csrftoken";
/** Where the browser API lives. */
export const JSON_PREFIX = "/json";

/** Django's CSRF_SECRET_LENGTH: the token is 32 letters and digits. */
const CSRF_TOKEN_CHARS = 32;
const CSRF_TOKEN_SHAPE = /^[A-Za-z0-9]*$/;
/** Django's CSRF_COOKIE_AGE: about a year. */
const CSRF_COOKIE_MAX_AGE_SECONDS = 60 * 60 * 24 * 7 * 52;
/** Methods that change nothing (RFC 9110 safe methods): no CSRF check. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);
/** How Django names the header in its refusals (X-CSRFToken, as HttpHeaders spells it). */
const HEADER_IN_MESSAGES = "the 'X-Csrftoken' HTTP header";

/**
 * Where the browser app calls an endpoint (Zulip's /json twin of /api/v1), or null for the ones
 * it does not get: integrations' URLs (their key is the credential) and the test controls.
 */
export function jsonPath(endpoint: Pick<Endpoint, "auth" | "path">): string | null {
  return endpoint.auth === "webhook" || endpoint.path.startsWith("/__test/") ? null : `${JSON_PREFIX}${endpoint.path}`;
}

/** Whether the site is served over https (EXTERNAL_URL): then the cookies are Secure. */
export function secureSite(externalUrl: string): boolean {
  return externalUrl.startsWith("https:");
}

/** A cookie's value from the request's Cookie header, or null (the first of a repeated name, as browsers order them). */
export function readCookie(req: FastifyRequest, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return null;
}

/** Cookie attributes: every cookie here is site-wide and SameSite=Lax; `secure` when the site is https. */
type CookieOptions = { httpOnly: boolean; maxAgeSeconds: number; secure: boolean };

/** Adds a Set-Cookie header (Fastify keeps each one). Values here are letters and digits: no encoding needed. */
export function setCookie(reply: FastifyReply, name: string, value: string, opts: CookieOptions): void {
  const parts = [`${name}=${value}`, `Max-Age=${opts.maxAgeSeconds}`, "Path=/", "SameSite=Lax"];
  if (opts.maxAgeSeconds === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (opts.httpOnly) parts.push("HttpOnly");
  if (opts.secure) parts.push("Secure");
  reply.header("set-cookie", parts.join("; "));
}

/** The CSRF token issued with a response (new or rotated), set as the cookie when it is sent. */
const issuedTokens = new WeakMap<FastifyRequest, string>();

function validToken(value: string | null): value is string {
  return value !== null && value.length === CSRF_TOKEN_CHARS && CSRF_TOKEN_SHAPE.test(value);
}

/** The request's CSRF token: its cookie's when well formed, else a new one the response sets (Django's get_token). */
export function csrfToken(req: FastifyRequest): string {
  const current = issuedTokens.get(req) ?? readCookie(req, CSRF_COOKIE);
  return validToken(current) ? current : rotateCsrfToken(req);
}

/** A new CSRF token for the response to set (Django's rotate_token, at login). */
export function rotateCsrfToken(req: FastifyRequest): string {
  const token = randomAlphanumeric(CSRF_TOKEN_CHARS);
  issuedTokens.set(req, token);
  return token;
}

/** Whether two strings are equal, in time that does not depend on where they differ. */
function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** Django's reason for a token (cookie or header) that cannot be a token, or null. */
function formatProblem(value: string): string | null {
  if (value.length !== CSRF_TOKEN_CHARS) return "has incorrect length";
  if (!CSRF_TOKEN_SHAPE.test(value)) return "has invalid characters";
  return null;
}

/**
 * A cross-site Origin is refused first, as Django does: the page's origin must be this site
 * (EXTERNAL_URL, or the host the request was sent to, which a proxy may present differently).
 */
function checkOrigin(req: FastifyRequest, siteOrigin: string): void {
  const origin = req.headers.origin;
  if (origin === undefined || origin === siteOrigin) return;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    host = null;
  }
  if (host === null || host !== req.headers.host) throw new CsrfFailedError(`Origin checking failed - ${origin} does not match any trusted origins.`);
}

/**
 * Django's CsrfViewMiddleware for a request under /json/: anything but a safe method needs the
 * `csrftoken` cookie and the same value in `X-CSRFToken`. Throws CsrfFailedError with Django's
 * reason otherwise.
 */
export function checkCsrf(req: FastifyRequest, siteOrigin: string): void {
  if (SAFE_METHODS.has(req.method)) return;
  checkOrigin(req, siteOrigin);
  const cookie = readCookie(req, CSRF_COOKIE);
  if (cookie === null || cookie === "") throw new CsrfFailedError("CSRF cookie not set.");
  const cookieProblem = formatProblem(cookie);
  if (cookieProblem !== null) throw new CsrfFailedError(`CSRF cookie ${cookieProblem}.`);
  const header = req.headers["x-csrftoken"];
  const sent = Array.isArray(header) ? header[0] : header;
  if (sent === undefined || sent === "") throw new CsrfFailedError("CSRF token missing.");
  const headerProblem = formatProblem(sent);
  if (headerProblem !== null) throw new CsrfFailedError(`CSRF token from ${HEADER_IN_MESSAGES} ${headerProblem}.`);
  if (!sameToken(sent, cookie)) throw new CsrfFailedError(`CSRF token from ${HEADER_IN_MESSAGES} incorrect.`);
}

/**
 * Sets the CSRF cookie on a /json response when the request had none (or a malformed one), or
 * when the handler issued a new token: a browser's first call gives it the token for its writes.
 */
function setCsrfCookieIfNeeded(req: FastifyRequest, reply: FastifyReply, secure: boolean): void {
  const issued = issuedTokens.get(req) ?? (validToken(readCookie(req, CSRF_COOKIE)) ? null : rotateCsrfToken(req));
  if (issued !== null) setCookie(reply, CSRF_COOKIE, issued, { httpOnly: false, maxAgeSeconds: CSRF_COOKIE_MAX_AGE_SECONDS, secure });
}

/** Django's never_cache headers, which upstream's answers carry. */
const NEVER_CACHE = "max-age=0, no-cache, no-store, must-revalidate, private";

/**
 * Adds the CSRF check to every route under /json/ (before anything else reads the request) and
 * the CSRF cookie to every answer of those routes that needs one, and never-cache headers to them all. `externalUrl`: the site (EXTERNAL_URL).
 */
export function registerCsrf(app: App, externalUrl: string): void {
  const siteOrigin = new URL(externalUrl).origin;
  const secure = secureSite(externalUrl);
  // Callback hooks, as app.ts's: an async one costs every request a promise and a microtask.
  app.addHook("onRequest", (req, _reply, done) => {
    if (!req.routeOptions.url?.startsWith(`${JSON_PREFIX}/`)) return done();
    try {
      checkCsrf(req, siteOrigin);
      done();
    } catch (err) {
      done(err as Error);
    }
  });
  const setCookieHook: onSendHookHandler = (req, reply, payload, done) => {
    setCsrfCookieIfNeeded(req, reply, secure);
    // The browser never keeps an answer of the session: Back would otherwise reuse one from
    // before logging in (GET /json/session saying "signed out"). Upstream's never-cache headers;
    // answers that choose their own (file bytes) keep theirs.
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", NEVER_CACHE);
    done(null, payload);
  };
  // On the /json routes only: a route without onSend hooks sends its answer past Fastify's hook
  // chain, and every long poll of a fan-out to API clients answers through it.
  app.addHook("onRoute", (route) => {
    if (!route.url.startsWith(`${JSON_PREFIX}/`)) return;
    route.onSend = route.onSend === undefined ? [setCookieHook] : [...[route.onSend].flat(), setCookieHook];
  });
}
