/**
 * What the account email suites share: a server sending through a test SMTP server (both stores),
 * waiting for a mail, and a browser's login through /json/login with its session cookie.
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { expectSuccess } from "../helpers/client.ts";
import { smtpUrl, TestSmtp, waitFor, type Mail } from "../helpers/smtp.ts";
import { useServer, type SuiteServer } from "../helpers/suite.ts";
import type { StoreKind } from "../helpers/stores.ts";

/** A suite's server with SMTP_URL at a test SMTP server, behind a trusted proxy so each test may name its client address (X-Forwarded-For). */
export function useMailingServer(store: StoreKind, env: Record<string, string>): { server: SuiteServer; smtp: TestSmtp } {
  const smtp = new TestSmtp();
  before(async () => {
    await smtp.start();
  });
  const server = useServer(store, () => ({ SMTP_URL: smtpUrl(smtp), EMAIL_RETRY_BASE_MS: "50", TRUSTED_PROXIES: "127.0.0.1, ::1", ...env }));
  after(async () => {
    await smtp.stop();
  });
  return { server, smtp };
}

/** The first mail to `to` among those received after the first `skip`, once it arrives. */
export function mailTo(smtp: TestSmtp, to: string, skip = 0): Promise<Mail> {
  return waitFor(`mail to ${to}`, () => smtp.mails.slice(skip).find((m) => m.to.includes(to)));
}

/** Headers that make a request come from `ip` (through the trusted proxy). */
export function fromIp(ip: string, extra: Record<string, string> = {}): { headers: Record<string, string> } {
  return { headers: { "x-forwarded-for": ip, ...extra } };
}

/** The name=value pairs of a response's Set-Cookie lines. */
function setCookies(res: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair.indexOf("=");
    out.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return out;
}

/** Logs in as a browser does (GET /json/session for the CSRF cookie, then POST /json/login); returns the browser's Cookie header. */
export async function browserLogin(url: string, email: string, password: string, headers: Record<string, string> = {}): Promise<string> {
  const csrf = setCookies(await fetch(`${url}/json/session`)).get("csrftoken");
  assert.ok(csrf, "GET /json/session sets the CSRF cookie");
  const res = await fetch(`${url}/json/login`, {
    method: "POST",
    headers: { ...headers, cookie: `csrftoken=${csrf}`, "x-csrftoken": csrf, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: email, password }).toString(),
  });
  const body = await res.json();
  expectSuccess({ status: res.status, body, headers: res.headers });
  const jar = new Map([["csrftoken", csrf], ...setCookies(res)]);
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

/** The user GET /json/session names for this browser's cookies (null: its session has ended). */
export async function sessionUserId(url: string, cookie: string): Promise<number | null> {
  const res = await fetch(`${url}/json/session`, { headers: { cookie } });
  const body = (await res.json()) as { user: { user_id: number } | null };
  return body.user?.user_id ?? null;
}
