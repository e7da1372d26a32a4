/**
 * Invitation emails: with SMTP_URL pointing at a real SMTP server started here (smtp-server,
 * behind a TCP front that can drop connections), POST /invites and resend mail the link; the
 * link reads and registers the invited user once; a reusable link's visitor is mailed a sign-up
 * confirmation, whose link alone creates the account; a refusing, dropping or credential-refusing
 * server is retried, then given up on in the log (never the password), and the API call stands.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue } from "../helpers/events.ts";
import { createStream } from "../helpers/factories.ts";
import { linkToken, smtpUrl, SMTP_PASSWORD, SMTP_USER, TestSmtp, waitFor, type Mail } from "../helpers/smtp.ts";
import { forEachStore, useServer } from "../helpers/suite.ts";

/** sends_email_by_ip's limit in this suite. */
const SENDS_PER_DAY = 6;

forEachStore("invitation emails", (store) => {
  const smtp = new TestSmtp();
  before(async () => {
    await smtp.start();
  });
  const server = useServer(store, () => ({
    SMTP_URL: smtpUrl(smtp),
    EMAIL_RETRY_BASE_MS: "50",
    // Only sends_email_by_ip is tested here; the other rules are off.
    RATE_LIMIT_SENDS_EMAIL_PER_IP: String(SENDS_PER_DAY),
    RATE_LIMIT_API_PER_IP: "0",
    RATE_LIMIT_API_PER_USER: "0",
    LOGIN_RATE_LIMIT: "0",
  }));
  after(async () => {
    await smtp.stop();
  });

  const invite = (user: Credentials, params: Record<string, unknown>) => server.api.post(user, "/invites", { stream_ids: [], ...params });
  const register = (token: string, params: Record<string, unknown>) => server.api.post(null, `/invites/accept/${token}/register`, params);

  /** The next mail to `to`, once it arrives. */
  async function mailTo(to: string, after = 0): Promise<Mail> {
    return waitFor(`mail to ${to}`, () => smtp.mails.slice(after).find((m) => m.to.includes(to)));
  }

  test("GET /json/session tells the web app that this server sends email", async () => {
    const res = await fetch(`${server.url}/json/session`, { headers: { accept: "application/json" } });
    assert.equal((await res.json()).email_sending, true);
  });

  test("the invitation is mailed; its link registers the invited user once, with the invitation's role and channels", async () => {
    const { owner } = server.fixtures;
    smtp.mode = "accept";
    const room = await createStream(server, owner, "mailroom");
    expectSuccess(await invite(owner, { invitee_emails: "Pat <pat@example.org>", invite_as: 300, stream_ids: [room] }));
    const mail = await mailTo("pat@example.org");
    assert.deepEqual([mail.from, mail.to, mail.subject], ["noreply@127.0.0.1", ["pat@example.org"], "Olivia Owner invited you to join Test Org"]);
    assert.match(mail.body, /This invitation expires on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\./);
    const token = linkToken(server, mail);
    const read = expectSuccess(await server.api.get(null, `/invites/accept/${token}`));
    assert.deepEqual([read.email, read.is_multiuse, read.invited_as, read.streams], ["pat@example.org", false, 300, ["mailroom"]]);
    // A second invitation to the address is revoked when the first is accepted.
    expectSuccess(await invite(owner, { invitee_emails: "pat@example.org" }));
    assert.equal((expectSuccess(await server.api.get(owner, "/invites")).invites as Array<{ email?: string }>).filter((i) => i.email === "pat@example.org").length, 2);
    const ownerQueue = await registerQueue(server.api, owner, { event_types: ["message"] });
    expectError(await register(token, { full_name: "Pat Doe", password: "pw-123456789", email: "other@example.org" }), "BAD_REQUEST", "This invitation is for a different email address.");
    const made = expectSuccess(await register(token, { full_name: "Pat Doe", password: "pw-123456789" }));
    assert.deepEqual([made.email, typeof made.user_id], ["pat@example.org", "number"]);
    expectError(await register(token, { full_name: "Pat Again", password: "pw-123456789" }), "INVALID_INVITE", "The invitation link has expired or been deactivated.");
    expectError(await server.api.get(null, `/invites/accept/${token}`), "INVALID_INVITE", "The invitation link has expired or been deactivated.");
    assert.ok(!(expectSuccess(await server.api.get(owner, "/invites")).invites as Array<{ email?: string }>).some((i) => i.email === "pat@example.org"));
    const key = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: "pat@example.org", password: "pw-123456789" }));
    assert.equal(key.user_id, made.user_id);
    assert.equal(expectSuccess(await server.api.get(owner, `/users/${made.user_id}`)).user.role, 300);
    assert.deepEqual(expectSuccess(await server.api.get(owner, `/streams/${room}/members`)).subscribers.includes(made.user_id), true);
    // notify_referrer_on_join (default true): the Notification Bot tells the inviter.
    const messages = await pollEvents(server.api, ownerQueue);
    const notice = messages.find((e) => e.type === "message") as { message: { content: string; sender_full_name: string } } | undefined;
    assert.ok(notice, "the inviter is told");
    assert.equal(notice.message.sender_full_name, "Notification Bot");
    assert.match(notice.message.content, /Pat Doe.*accepted your invitation to join Test Org!/);
  });

  test("resend mails a fresh link; the old one stops working; a revoked invitation's link is dead", async () => {
    const { member, admin } = server.fixtures;
    smtp.mode = "accept";
    expectSuccess(await invite(member, { invitee_emails: "quinn@example.org" }));
    const first = linkToken(server, await mailTo("quinn@example.org"));
    const id = (expectSuccess(await server.api.get(member, "/invites")).invites as Array<{ id: number; email?: string }>).find((i) => i.email === "quinn@example.org")?.id;
    const seen = smtp.mails.length;
    expectSuccess(await server.api.post(member, `/invites/${id}/resend`));
    const resent = await mailTo("quinn@example.org", seen);
    assert.equal(resent.subject, "Max Member invited you to join Test Org");
    const second = linkToken(server, resent);
    assert.notEqual(second, first);
    expectError(await server.api.get(null, `/invites/accept/${first}`), "INVALID_INVITE", "We couldn't find that invitation link.");
    expectSuccess(await server.api.get(null, `/invites/accept/${second}`));
    expectSuccess(await server.api.delete(admin, `/invites/${id}`));
    expectError(await server.api.get(null, `/invites/accept/${second}`), "INVALID_INVITE", "The invitation link has expired or been deactivated.");
  });

  test("a reusable link signs up only through a confirmation mailed to the address; the account exists only once its link is used", async () => {
    const { owner, admin } = server.fixtures;
    smtp.mode = "accept";
    const room = await createStream(server, owner, "confirmroom");
    const url = expectSuccess(await server.api.post(admin, "/invites/multiuse", { invite_as: 300, stream_ids: [room] })).invite_link as string;
    const link = /\/join\/([A-Za-z0-9]+)\/$/.exec(url)?.[1] ?? "";
    const confirm = (email: string) => server.api.post(null, `/invites/accept/${link}/confirm_email`, { email });
    const userCount = async () => expectSuccess(await server.api.get(owner, "/users")).members.length;
    const before = await userCount();
    assert.equal(expectSuccess(await server.api.get(null, `/invites/accept/${link}`)).email_confirmation, true);
    const direct = await register(link, { full_name: "Vic Visitor", password: "pw-123456789", email: "vic@example.org" });
    expectError(direct, "BAD_REQUEST", "This invitation link needs your email address confirmed first: ask for a confirmation email, and sign up through its link.");
    // The same rules as a sign-up, before anything is mailed.
    expectError(await confirm("vic@mailinator.com"), "BAD_REQUEST", "Please use your real email address.");
    expectError(await confirm("Member@example.com"), "BAD_REQUEST", "Member@example.com already has an account");
    expectSuccess(await invite(admin, { invitee_emails: "invited@example.org" }));
    expectError(await confirm("invited@example.org"), "BAD_REQUEST", "invited@example.org has a pending invitation: sign up through the link it was sent, or ask an administrator to revoke it.");
    expectError(await confirm("nope"), "BAD_REQUEST", "Enter a valid email address.");
    expectError(await server.api.post(null, `/invites/accept/${link}/confirm_email`, {}), "REQUEST_VARIABLE_MISSING", "Missing 'email' argument");
    const seen = smtp.mails.length;
    assert.deepEqual(expectSuccess(await confirm(" vic@example.org ")).email, "vic@example.org");
    const mail = await mailTo("vic@example.org", seen);
    assert.equal(mail.subject, "Confirm your email address to join Test Org");
    const refused = ["vic@mailinator.com", "member@example.com", "nope"];
    assert.ok(!smtp.mails.some((m) => m.to.some((to) => refused.includes(to.toLowerCase()))), "nothing mailed to the refused addresses");
    assert.equal(await userCount(), before, "no account before the address is confirmed");
    const token = linkToken(server, mail);
    assert.notEqual(token, link);
    const read = expectSuccess(await server.api.get(null, `/invites/accept/${token}`));
    assert.deepEqual([read.email, read.is_multiuse, read.invited_as, read.streams, read.email_confirmation], ["vic@example.org", false, 300, ["confirmroom"], false]);
    const listed = expectSuccess(await server.api.get(admin, "/invites")).invites as Array<{ email?: string }>;
    assert.ok(!listed.some((i) => i.email === "vic@example.org"), "a confirmation is not an invitation anyone manages");
    // The confirmation's link completes the sign-up with a name and a password, once.
    const made = expectSuccess(await register(token, { full_name: "Vic Visitor", password: "pw-123456789" }));
    assert.equal(made.email, "vic@example.org");
    assert.equal(expectSuccess(await server.api.get(owner, `/users/${made.user_id}`)).user.role, 300);
    assert.ok(expectSuccess(await server.api.get(owner, `/streams/${room}/members`)).subscribers.includes(made.user_id));
    expectSuccess(await server.api.post(null, "/fetch_api_key", { username: "vic@example.org", password: "pw-123456789" }));
    expectError(await register(token, { full_name: "Vic Again", password: "pw-123456789" }), "INVALID_INVITE", "The invitation link has expired or been deactivated.");
    expectError(await confirm("vic@example.org"), "BAD_REQUEST", "vic@example.org already has an account");
    // Asked twice: the first confirmation used revokes the other; revoking the link kills the rest.
    const twice = smtp.mails.length;
    expectSuccess(await confirm("wes@example.org"));
    const first = linkToken(server, await mailTo("wes@example.org", twice));
    expectSuccess(await confirm("wes@example.org"));
    const second = linkToken(server, await mailTo("wes@example.org", twice + 1));
    expectSuccess(await register(second, { full_name: "Wes Visitor", password: "pw-123456789" }));
    expectError(await register(first, { full_name: "Wes Again", password: "pw-123456789" }), "INVALID_INVITE", "The invitation link has expired or been deactivated.");
    const later = smtp.mails.length;
    expectSuccess(await confirm("xia@example.org"));
    const orphan = linkToken(server, await mailTo("xia@example.org", later));
    const linkId = (expectSuccess(await server.api.get(admin, "/invites")).invites as Array<{ id: number; link_url?: string }>).find((i) => i.link_url === url)?.id;
    expectSuccess(await server.api.delete(admin, `/invites/multiuse/${linkId}`));
    expectError(await server.api.get(null, `/invites/accept/${orphan}`), "INVALID_INVITE", "The invitation link has expired or been deactivated.");
    expectError(await register(orphan, { full_name: "Xia Visitor", password: "pw-123456789" }), "INVALID_INVITE", "The invitation link has expired or been deactivated.");
    assert.equal(await userCount(), before + 2);
  });

  test("a sign-up confirmation expires after SIGNUP_CONFIRMATION_MINUTES (a day by default)", async () => {
    const { admin } = server.fixtures;
    smtp.mode = "accept";
    const url = expectSuccess(await server.api.post(admin, "/invites/multiuse", { invite_expires_in_minutes: null })).invite_link as string;
    const link = /\/join\/([A-Za-z0-9]+)\/$/.exec(url)?.[1] ?? "";
    const seen = smtp.mails.length;
    expectSuccess(await server.api.post(null, `/invites/accept/${link}/confirm_email`, { email: "yan@example.org" }));
    const mail = await mailTo("yan@example.org", seen);
    assert.match(mail.body, /The link works until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\./);
    await server.advanceClock(24 * 3600 + 60);
    expectError(await register(linkToken(server, mail), { full_name: "Yan Visitor", password: "pw-123456789" }), "INVALID_INVITE", "The invitation link has expired or been deactivated.");
    expectSuccess(await server.api.get(null, `/invites/accept/${link}`));
  });

  test("sign-up confirmations count toward sends_email_by_ip per client address; refused addresses do not", async () => {
    const { admin } = server.fixtures;
    smtp.mode = "accept";
    const url = expectSuccess(await server.api.post(admin, "/invites/multiuse", { invite_expires_in_minutes: null })).invite_link as string;
    const link = /\/join\/([A-Za-z0-9]+)\/$/.exec(url)?.[1] ?? "";
    const confirm = (email: string) => server.api.post(null, `/invites/accept/${link}/confirm_email`, { email });
    // A fresh day: the window opens at the first counted send.
    await server.advanceClock(24 * 3600 + 1);
    for (let i = 0; i < SENDS_PER_DAY; i++) {
      expectError(await confirm(`limit${i}@mailinator.com`), "BAD_REQUEST", "Please use your real email address.");
      expectSuccess(await confirm(`limit${i}@example.org`));
    }
    // Every send is mailed before the next test counts SMTP connections.
    for (let i = 0; i < SENDS_PER_DAY; i++) await mailTo(`limit${i}@example.org`);
    const refused = await confirm("one-more@example.org");
    expectError(refused, "RATE_LIMIT_HIT", "API usage exceeded rate limit", 429);
    assert.ok(Number(refused.body["retry-after"]) > 0);
    await server.advanceClock(24 * 3600 + 1);
    expectSuccess(await confirm("one-more@example.org"));
    await mailTo("one-more@example.org");
  });

  for (const mode of ["refuse", "drop", "bad-login"] as const) {
    test(`an SMTP server that ${mode === "refuse" ? "refuses the message" : mode === "drop" ? "drops the connection" : "refuses the login"}: retried, then logged without the password; the call succeeded`, async () => {
      const { admin } = server.fixtures;
      smtp.mode = mode;
      const address = `${mode}@example.org`;
      const connections = smtp.connections;
      const logged = server.output().length;
      expectSuccess(await invite(admin, { invitee_emails: address }));
      const gaveUp = await waitFor("the give-up log line", () => server.output().slice(logged).split("\n").find((l) => l.includes("maximum retries exceeded")));
      assert.equal(smtp.connections - connections, 4, "one try and three retries");
      const line = JSON.parse(gaveUp) as { level: number; tries: number; reason: string };
      assert.deepEqual([line.level, line.tries], [40, 4]);
      assert.ok(line.reason.length > 0);
      assert.ok(!smtp.mails.some((m) => m.to.includes(address)));
      for (const secret of [SMTP_PASSWORD, encodeURIComponent(SMTP_PASSWORD), Buffer.from(`\0${SMTP_USER}\0${SMTP_PASSWORD}`).toString("base64")]) {
        assert.ok(!server.output().includes(secret), "the SMTP password is never logged");
      }
      assert.ok((expectSuccess(await server.api.get(admin, "/invites")).invites as Array<{ email?: string }>).some((i) => i.email === address), "the invitation stands");
      smtp.mode = "accept";
    });
  }
});
