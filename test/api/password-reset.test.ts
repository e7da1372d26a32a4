/**
 * Password reset (issue 40) on a server sending through a real SMTP server, on both stores: the
 * request mails a single-use link (HTML and text, the name escaped) that sets a new password,
 * ends the user's browser sessions (not the API key) and lets the new password log in; every
 * address gets the same answer, and only an active account's is mailed a link; limits per address
 * and per client address; links expire and a newer one revokes the older; the
 * send-password-resets command; and a server without SMTP_URL saying so.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { WRONG_LOGIN } from "../helpers/errors.ts";
import { mailLink } from "../helpers/mail-links.ts";
import { mailParts } from "../helpers/mail-parts.ts";
import { runCli } from "../helpers/server.ts";
import { smtpUrl } from "../helpers/smtp.ts";
import { describeEachStore, forEachStore } from "../helpers/suite.ts";
import { browserLogin, fromIp, mailTo, sessionUserId, useMailingServer } from "./accounts-support.ts";

const BAD_LINK = "The password reset link is invalid or has expired, possibly because it has already been used. Please request a new password reset.";
const PASSWORD = "account-password-1";

forEachStore("password reset by email", (store) => {
  const { server, smtp } = useMailingServer(store, {
    RATE_LIMIT_PASSWORD_RESET_PER_HOUR: "2",
    RATE_LIMIT_PASSWORD_RESET_PER_DAY: "5",
    RATE_LIMIT_SENDS_EMAIL_PER_IP: "4",
    RATE_LIMIT_API_PER_IP: "0",
    RATE_LIMIT_API_PER_USER: "0",
    LOGIN_RATE_LIMIT: "0",
  });
  let people = 0;

  /** A new member with a password, made by the owner (never logged in). */
  async function newMember(name: string): Promise<{ id: number; email: string }> {
    people += 1;
    const email = `reset${people}@example.org`;
    const made = expectSuccess(await server.api.post(server.fixtures.owner, "/users", { email, password: PASSWORD, full_name: name }));
    return { id: made.user_id as number, email };
  }
  const ask = (email: string, ip: string) => server.api.post(null, "/accounts/password/reset", { email }, fromIp(ip));
  const login = (username: string, password: string) => server.api.post(null, "/fetch_api_key", { username, password });
  /** The reset link's path parts, from the mail to `email` (after the first `skip` mails). */
  async function resetLink(email: string, skip = 0): Promise<{ uid: string; token: string }> {
    const url = mailLink(mailParts(await mailTo(smtp, email, skip)).text, server.url, "/accounts/password/reset/");
    const [, uid, token] = /^\/accounts\/password\/reset\/([^/]+)\/([^/]+)\/$/.exec(url.pathname) ?? [];
    assert.ok(uid && token, `a reset link: ${url}`);
    return { uid, token };
  }

  test("request -> email -> link -> new password: other browsers are logged out, the API key stays, the new password logs in", async () => {
    const user = await newMember("Rosa & <script");
    const apiKey = expectSuccess(await login(user.email, PASSWORD)).api_key as string;
    const browsers = [await browserLogin(server.url, user.email, PASSWORD), await browserLogin(server.url, user.email, PASSWORD)];
    for (const cookie of browsers) assert.equal(await sessionUserId(server.url, cookie), user.id);

    assert.deepEqual(expectSuccess(await ask(user.email, "192.0.2.1")), { result: "success", msg: "" });
    const mail = await mailTo(smtp, user.email);
    assert.equal(mail.subject, "Password reset request for Test Org");
    const { text, html } = mailParts(mail);
    assert.match(text, /^Hello Rosa & <script,/);
    assert.match(text, /The link works once, for 60 minutes\./);
    assert.match(html, /^<!DOCTYPE html>/, "an HTML part");
    assert.ok(html.includes("Hello Rosa &amp; &lt;script,"), "the name is escaped in HTML");
    assert.ok(!html.includes("<script"), "no markup from the name");
    const { uid, token } = await resetLink(user.email);
    assert.ok(html.includes(`${server.url}/accounts/password/reset/${uid}/${token}/`), "the HTML part carries the same link");
    assert.equal(Buffer.from(uid, "base64url").toString(), String(user.id), "uidb64 is the user id, as upstream's links");

    assert.deepEqual(expectSuccess(await server.api.get(null, `/accounts/password/reset/${uid}/${token}`)).email, user.email);
    expectError(await server.api.post(null, `/accounts/password/reset/${uid}/${token}`, { new_password: "abc" }), "BAD_REQUEST", "The password is too weak.");
    expectError(await server.api.get(null, `/accounts/password/reset/Mg/${token}`), "BAD_REQUEST", BAD_LINK);
    assert.equal(expectSuccess(await server.api.post(null, `/accounts/password/reset/${uid}/${token}`, { new_password: "a brand new password" })).email, user.email);
    expectError(await server.api.post(null, `/accounts/password/reset/${uid}/${token}`, { new_password: "another new password" }), "BAD_REQUEST", BAD_LINK);
    expectError(await server.api.get(null, `/accounts/password/reset/${uid}/${token}`), "BAD_REQUEST", BAD_LINK);

    for (const cookie of browsers) assert.equal(await sessionUserId(server.url, cookie), null, "the browser session ended");
    expectSuccess(await server.api.get({ email: user.email, apiKey }, "/users/me"));
    expectError(await login(user.email, PASSWORD), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
    assert.equal(expectSuccess(await login(user.email, "a brand new password")).api_key, apiKey);
    assert.equal(await sessionUserId(server.url, await browserLogin(server.url, user.email, "a brand new password")), user.id);
  });

  test("every address gets the same answer; an unknown one and a bot's are mailed nothing, a deactivated account a note without a link", async () => {
    const { admin, bot } = server.fixtures;
    const gone = await newMember("Gone Gina");
    expectSuccess(await server.api.delete(admin, `/users/${gone.id}`));
    const active = await newMember("Active Abe");
    const seen = smtp.mails.length;
    const answers = [];
    for (const email of ["nobody-here@example.org", bot.email, gone.email, active.email]) answers.push((await ask(email, "192.0.2.2")).body);
    assert.deepEqual(answers, Array(4).fill({ result: "success", msg: "" }));
    // Past sends_email_by_ip's limit of 4 for that address now; a refused form costs nothing.
    expectError(await ask("not an address", "192.0.2.3"), "BAD_REQUEST", "Enter a valid email address.");
    expectError(await server.api.post(null, "/accounts/password/reset", {}, fromIp("192.0.2.3")), "REQUEST_VARIABLE_MISSING", "Missing 'email' argument");

    const note = mailParts(await mailTo(smtp, gone.email, seen));
    assert.match(note.text, /That account has been deactivated, so its password cannot be reset\./);
    assert.ok(!note.text.includes("/accounts/password/reset/"), "no link for a deactivated account");
    await resetLink(active.email, seen);
    // The active account's link was queued last: had the others been mailed, they would have arrived first.
    assert.deepEqual(smtp.mails.slice(seen).map((m) => m.to[0]).sort(), [active.email, gone.email].sort());
  });

  test("send-password-resets mails who it is told to (--only-never-logged-in skips those who logged in); its links work", async () => {
    const cli = (args: string[]) => runCli(server.store, ["send-password-resets", ...args], { env: { SMTP_URL: smtpUrl(smtp), EXTERNAL_URL: server.url } });
    const never = await newMember("Never Nell");
    const logged = await newMember("Logged Lee");
    expectSuccess(await login(logged.email, PASSWORD));
    const seen = smtp.mails.length;
    const res = await cli(["--only-never-logged-in"]);
    assert.equal(res.code, 0, res.stderr);
    const out = JSON.parse(res.stdout) as { emails: string[]; sent: number; queued: number };
    assert.ok(out.emails.includes(never.email) && !out.emails.includes(logged.email), res.stdout);
    assert.ok(!out.emails.includes(server.fixtures.bot.email), "no bots");
    assert.deepEqual([out.sent, out.queued], [out.emails.length, 0]);
    const { uid, token } = await resetLink(never.email, seen);
    expectSuccess(await server.api.post(null, `/accounts/password/reset/${uid}/${token}`, { new_password: "chosen by nell" }));
    expectSuccess(await login(never.email, "chosen by nell"));

    const one = await cli(["--email", logged.email]);
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(JSON.parse(one.stdout), { emails: [logged.email], sent: 1, queued: 0 });
    await resetLink(logged.email, seen);
    for (const [args, code, message] of [
      [[], 2, "pass --email E, --all-users or --only-never-logged-in"],
      [["--email", server.fixtures.bot.email], 1, "bots log in with their API key and have no password"],
    ] as const) {
      const refused = await cli([...args]);
      assert.equal(refused.code, code, refused.stderr);
      assert.ok(refused.stderr.includes(message), refused.stderr);
    }
  });

  test("four requests a day per client address (sends_email_by_ip), whatever the addresses", async () => {
    for (let i = 0; i < 4; i++) expectSuccess(await ask(`stranger${i}@example.org`, "192.0.2.9"));
    expectError(await ask("stranger9@example.org", "192.0.2.9"), "RATE_LIMIT_HIT", "API usage exceeded rate limit", 429);
    expectSuccess(await ask("stranger9@example.org", "192.0.2.10"));
  });

  test("two requests an hour per address, known or not (429 RATE_LIMIT_HIT), counted before the lookup; the hour passing frees it", async () => {
    const user = await newMember("Limited Lou");
    let ip = 10;
    const next = () => `198.51.100.${ip++}`;
    for (const email of [user.email, "no-account@example.org"]) {
      expectSuccess(await ask(email, next()));
      expectSuccess(await ask(email, next()));
      const refused = await ask(email.toUpperCase(), next());
      expectError(refused, "RATE_LIMIT_HIT", "API usage exceeded rate limit", 429);
      assert.ok(Number(refused.body["retry-after"]) > 0 && Number(refused.body["retry-after"]) <= 3600);
    }
    await server.advanceClock(3600);
    expectSuccess(await ask(user.email, next()));
  });

  test("a newer link revokes the older; a link expires after PASSWORD_RESET_MINUTES", async () => {
    const user = await newMember("Expiring Eve");
    const seen = smtp.mails.length;
    expectSuccess(await ask(user.email, "192.0.2.20"));
    const first = await resetLink(user.email, seen);
    const second = smtp.mails.length;
    expectSuccess(await ask(user.email, "192.0.2.21"));
    const newer = await resetLink(user.email, second);
    expectError(await server.api.get(null, `/accounts/password/reset/${first.uid}/${first.token}`), "BAD_REQUEST", BAD_LINK);
    expectSuccess(await server.api.get(null, `/accounts/password/reset/${newer.uid}/${newer.token}`));
    await server.advanceClock(60 * 60 + 1);
    expectError(await server.api.get(null, `/accounts/password/reset/${newer.uid}/${newer.token}`), "BAD_REQUEST", BAD_LINK);
    expectError(await server.api.post(null, `/accounts/password/reset/${newer.uid}/${newer.token}`, { new_password: "too late a password" }), "BAD_REQUEST", BAD_LINK);
  });
});

describeEachStore("password reset and email changes without SMTP_URL", (server) => {
  test("the reset request and an email change say the server sends no email; the command asks for SMTP_URL", async () => {
    const { member } = server.fixtures;
    expectError(await server.api.post(null, "/accounts/password/reset", { email: member.email }), "BAD_REQUEST", "This server does not send email, so it cannot send password reset links. Ask an administrator of the organization to set a new password for you.");
    expectError(await server.api.patch(member, "/settings", { email: "new-address@example.org" }), "BAD_REQUEST", "This server does not send email, so it cannot confirm a new email address. Ask an administrator of the organization to change it.");
    assert.equal(expectSuccess(await server.api.get(member, "/users/me")).email, member.email);
    const res = await runCli(server.store, ["send-password-resets", "--all-users"]);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /set SMTP_URL first/);
  });
});
