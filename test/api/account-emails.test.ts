/**
 * Email address changes and new-login notices (issue 40) on a server sending through a real SMTP
 * server, on both stores: PATCH /settings `email` mails a confirmation link to the new address and
 * changes nothing until it is opened; opening it makes the change (realm_user events as upstream),
 * tells the old address, and works once; a newer request revokes the older link; two requests an
 * hour per user. A password login (POST /fetch_api_key, POST /json/login) mails the user when,
 * from what and from where, unless the account was just made or enable_login_emails is off.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { WRONG_LOGIN } from "../helpers/errors.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { mailLink } from "../helpers/mail-links.ts";
import { mailParts } from "../helpers/mail-parts.ts";
import { forEachStore } from "../helpers/suite.ts";
import { browserLogin, fromIp, mailTo, useMailingServer } from "./accounts-support.ts";

const PASSWORD = "account-password-1";
const STALE_LINK = "The confirmation link has expired or been deactivated.";
const CHROME_ON_LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const FIREFOX_ON_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0";

forEachStore("email changes and login notices", (store) => {
  const { server, smtp } = useMailingServer(store, {
    RATE_LIMIT_EMAIL_CHANGE_PER_HOUR: "2",
    RATE_LIMIT_EMAIL_CHANGE_PER_DAY: "5",
    RATE_LIMIT_API_PER_IP: "0",
    RATE_LIMIT_API_PER_USER: "0",
    LOGIN_RATE_LIMIT: "0",
  });
  let people = 0;

  /** A new member with a password (and its API key), made by the owner. */
  async function newMember(name: string): Promise<{ id: number; email: string; apiKey: string }> {
    people += 1;
    const email = `person${people}@example.org`;
    const made = expectSuccess(await server.api.post(server.fixtures.owner, "/users", { email, password: PASSWORD, full_name: name }));
    const apiKey = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: email, password: PASSWORD })).api_key as string;
    return { id: made.user_id as number, email, apiKey };
  }
  /** The key of the confirmation link mailed to `to` after the first `skip` mails. */
  async function confirmationKey(to: string, skip: number): Promise<string> {
    const url = mailLink(mailParts(await mailTo(smtp, to, skip)).text, server.url, "/accounts/confirm_new_email/");
    const key = /^\/accounts\/confirm_new_email\/([A-Za-z0-9]+)\/$/.exec(url.pathname)?.[1];
    assert.ok(key, `a confirmation link: ${url}`);
    return key;
  }
  const confirm = (key: string) => server.api.post(null, `/accounts/confirm_new_email/${key}`);
  const login = (username: string, password: string, headers: Record<string, string> = {}) => server.api.post(null, "/fetch_api_key", { username, password }, { headers });

  test("PATCH /settings email: the new address is mailed a link, and the change, its events and the old address's notice wait for it", async () => {
    const user = await newMember("Ezra & <b");
    const creds = { email: user.email, apiKey: user.apiKey };
    const [own, admins] = [await registerQueue(server.api, creds, { event_types: ["realm_user"] }), await registerQueue(server.api, server.fixtures.admin, { event_types: ["realm_user"] })];
    const seen = smtp.mails.length;
    assert.deepEqual(expectSuccess(await server.api.patch(creds, "/settings", { email: "ezra.new@example.org" })), { result: "success", msg: "" });
    assert.equal(expectSuccess(await server.api.get(creds, "/users/me")).email, user.email, "nothing changes before the link is opened");
    assert.deepEqual(await pollEvents(server.api, own), []);

    const mail = await mailTo(smtp, "ezra.new@example.org", seen);
    assert.equal(mail.subject, `Verify your new email address for ${new URL(server.url).host}`);
    const { text, html } = mailParts(mail);
    assert.match(text, new RegExp(`from ${user.email} to ezra\\.new@example\\.org\\.`));
    assert.ok(html.includes("Hello Ezra &amp; &lt;b,") && !html.includes("<b,"), "the name is escaped in HTML");
    const key = await confirmationKey("ezra.new@example.org", seen);

    assert.deepEqual(expectSuccess(await confirm(key)), { result: "success", msg: "", old_email: user.email, new_email: "ezra.new@example.org" });
    // The API key now goes with the new address (HTTP Basic names the user by it).
    own.user = { email: "ezra.new@example.org", apiKey: user.apiKey };
    const change = { type: "realm_user", op: "update", person: { user_id: user.id, delivery_email: "ezra.new@example.org" } };
    for (const queue of [own, admins]) assert.deepEqual(withoutIds(await pollEvents(server.api, queue)).filter((e) => "delivery_email" in (e.person as object)), [change]);
    const notice = await mailTo(smtp, user.email, seen);
    assert.equal(notice.subject, "Email address changed for Test Org");
    assert.match(mailParts(notice).text, new RegExp(`was changed from ${user.email} to ezra\\.new@example\\.org\\.`));

    expectError(await confirm(key), "BAD_REQUEST", STALE_LINK);
    expectError(await login(user.email, PASSWORD), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
    assert.equal(expectSuccess(await login("ezra.new@example.org", PASSWORD)).user_id, user.id);
    assert.equal(expectSuccess(await server.api.get(server.fixtures.admin, `/users/${user.id}`)).user.delivery_email, "ezra.new@example.org");
  });

  test("a newer request revokes the older link; a link goes stale once the address is taken; two requests an hour per user", async () => {
    const user = await newMember("Fay Fickle");
    const creds = { email: user.email, apiKey: user.apiKey };
    const seen = smtp.mails.length;
    expectSuccess(await server.api.patch(creds, "/settings", { email: "fay.first@example.org" }));
    const first = await confirmationKey("fay.first@example.org", seen);
    expectSuccess(await server.api.patch(creds, "/settings", { email: "fay.second@example.org" }));
    const second = await confirmationKey("fay.second@example.org", seen);
    expectError(await confirm(first), "BAD_REQUEST", STALE_LINK);
    const refused = await server.api.patch(creds, "/settings", { email: "fay.third@example.org" });
    expectError(refused, "RATE_LIMIT_HIT", "API usage exceeded rate limit", 429);
    // Someone else took the address meanwhile: the link is refused with the address check's words.
    expectSuccess(await server.api.post(server.fixtures.owner, "/users", { email: "fay.second@example.org", password: PASSWORD, full_name: "Other Fay" }));
    expectError(await confirm(second), "BAD_REQUEST", "Already has an account.");
    expectError(await confirm("not-a-key"), "BAD_REQUEST", STALE_LINK);
  });

  test("a password login mails the user the time, device and address; not a new account's first, a failed one, or with enable_login_emails off", async () => {
    const start = smtp.mails.length;
    const user = await newMember("Lena & <i");
    const creds = { email: user.email, apiKey: user.apiKey };
    // The account is under a minute old: newMember's login mailed nothing (as upstream's JUST_CREATED_THRESHOLD).
    await server.advanceClock(61);
    expectSuccess(await server.api.patch(creds, "/settings", { timezone: "Europe/Paris", twenty_four_hour_time: true }));
    const seen = smtp.mails.length;
    expectSuccess(await login(user.email, PASSWORD, { "user-agent": CHROME_ON_LINUX, ...fromIp("203.0.113.5").headers }));
    const api = await mailTo(smtp, user.email, seen);
    assert.deepEqual(smtp.mails.slice(start).filter((m) => m.to.includes(user.email)).map((m) => m.subject), ["New login from Chrome on Linux"]);
    const { text, html } = mailParts(api);
    assert.match(text, /A new login to your account in Test Org has just occurred\./);
    assert.match(text, new RegExp(`Account: ${user.email.replace(/\./g, "\\.")}`));
    assert.match(text, /Time: [A-Z][a-z]+day, [A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d\d GMT\+[12]\n/);
    assert.match(text, /Device: Chrome on Linux\nIP address: 203\.0\.113\.5\n/);
    assert.ok(html.includes("Hello Lena &amp; &lt;i,") && html.includes("203.0.113.5"), "the HTML part, escaped");

    const web = smtp.mails.length;
    await browserLogin(server.url, user.email, PASSWORD, { "user-agent": FIREFOX_ON_WINDOWS, ...fromIp("203.0.113.6").headers });
    const browser = await mailTo(smtp, user.email, web);
    assert.equal(browser.subject, "New login from Firefox on Windows");
    assert.match(mailParts(browser).text, /IP address: 203\.0\.113\.6\n/);

    const quiet = smtp.mails.length;
    expectError(await login(user.email, "not the password"), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
    expectSuccess(await server.api.patch(creds, "/settings", { enable_login_emails: false }));
    expectSuccess(await login(user.email, PASSWORD));
    expectSuccess(await server.api.patch(creds, "/settings", { enable_login_emails: true }));
    expectSuccess(await login(user.email, PASSWORD, { "user-agent": "ZulipMobile/27.230 (Android 14)" }));
    const last = await mailTo(smtp, user.email, quiet);
    assert.equal(last.subject, "New login from Zulip on Android");
    // Mailed in order: anything the failed login or the login with notices off had sent would have come first.
    assert.deepEqual(smtp.mails.slice(quiet).filter((m) => m.to.includes(user.email)).map((m) => m.subject), ["New login from Zulip on Android"]);
  });
});
