/**
 * Invitations without SMTP: POST /invites, POST /invites/multiuse, GET /invites, the revokes and
 * resend, their permission rules and errors, invites_changed events, and the sign-up page's
 * calls (GET /invites/accept/{token}, POST /invites/accept/{token}/register) through reusable
 * links. Email invitations' links travel only by email: invites-email.test.ts covers them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess, type ApiResponse, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { countRows, groupId } from "../helpers/db.ts";
import { createStream } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN, NOT_OWNER } from "../helpers/errors.ts";

const EXPIRED = "The invitation link has expired or been deactivated.";

/** The token of a reusable link (`.../join/<token>/`). */
function tokenOf(link: string): string {
  const match = /\/join\/([A-Za-z0-9]+)\/$/.exec(link);
  assert.ok(match, `an invitation link: ${link}`);
  return match[1];
}

/** Asserts an INVITATION_FAILED envelope with its skipped addresses. */
function expectInvitationFailed(res: ApiResponse, msg: string, errors: unknown[], sent: boolean): void {
  expectError(res, "INVITATION_FAILED", msg);
  assert.deepEqual(
    { errors: res.body.errors, sent_invitations: res.body.sent_invitations, license_limit_reached: res.body.license_limit_reached, daily_limit_reached: res.body.daily_limit_reached },
    { errors, sent_invitations: sent, license_limit_reached: false, daily_limit_reached: false },
  );
}

describeEachStore("invitations", (server) => {

  async function invites(user: Credentials): Promise<Array<Record<string, unknown>>> {
    return expectSuccess(await server.api.get(user, "/invites")).invites;
  }

  const invite = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/invites", { stream_ids: [], ...params });
  const link = async (user: Credentials, params: Record<string, unknown> = {}) => expectSuccess(await server.api.post(user, "/invites/multiuse", params)).invite_link as string;
  const accept = (token: string) => server.api.get(null, `/invites/accept/${token}`);
  const register = (token: string, params: Record<string, unknown>) => server.api.post(null, `/invites/accept/${token}/register`, params);

  test("POST /invites: listed to the inviter and administrators only; invites_changed to them", async () => {
    const { admin, owner, member, moderator } = server.fixtures;
    const queues = await Promise.all([admin, owner, member, moderator].map((u) => registerQueue(server.api, u, { event_types: ["invites_changed"] })));
    expectSuccess(await invite(member, { invitee_emails: "Alice <alice@example.org>, bob@example.org\n", invite_expires_in_minutes: 60 }));
    const [adminQ, ownerQ, memberQ, moderatorQ] = queues;
    for (const q of [adminQ, ownerQ, memberQ]) assert.deepEqual(withoutIds(await pollEvents(server.api, q)), [{ type: "invites_changed" }]);
    assert.deepEqual(await pollEvents(server.api, moderatorQ), []);
    const mine = await invites(member);
    assert.deepEqual(mine.map((i) => i.email).sort(), ["alice@example.org", "bob@example.org"]);
    const alice = mine.find((i) => i.email === "alice@example.org");
    assert.ok(alice);
    assert.deepEqual(Object.keys(alice).sort(), ["email", "expiry_date", "id", "invited", "invited_as", "invited_by_user_id", "is_multiuse", "notify_referrer_on_join"]);
    assert.equal(alice.invited_by_user_id, member.id);
    assert.equal(alice.invited_as, 400);
    assert.equal(alice.is_multiuse, false);
    assert.equal(alice.notify_referrer_on_join, true);
    assert.equal(Number(alice.expiry_date) - Number(alice.invited), 3600);
    assert.ok((await invites(admin)).some((i) => i.email === "alice@example.org"));
    assert.deepEqual(await invites(moderator), []);
    // A null expiry never expires; notify_referrer_on_join is kept.
    expectSuccess(await invite(admin, { invitee_emails: "carol@example.org", invite_expires_in_minutes: null, notify_referrer_on_join: false }));
    const carol = (await invites(admin)).find((i) => i.email === "carol@example.org");
    assert.deepEqual([carol?.expiry_date, carol?.notify_referrer_on_join], [null, false]);
  });

  test("who may invite, and as what", async () => {
    const { owner, admin, moderator, member, guest, bot } = server.fixtures;
    const before = await countRows(server, ["invites"]);
    expectError(await invite(guest, { invitee_emails: "x1@example.org" }), "BAD_REQUEST", "Not allowed for guest users");
    expectError(await invite(bot, { invitee_emails: "x1@example.org" }), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    expectError(await invite(null, { invitee_emails: "x1@example.org" }), "UNAUTHORIZED", NO_AUTH, 401);
    for (const role of [200, 300]) expectError(await invite(member, { invitee_emails: "x1@example.org", invite_as: role }), "BAD_REQUEST", NOT_ADMIN);
    expectError(await invite(moderator, { invitee_emails: "x1@example.org", invite_as: 300 }), "BAD_REQUEST", NOT_ADMIN);
    expectError(await invite(admin, { invitee_emails: "x1@example.org", invite_as: 100 }), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    expectError(await invite(member, { invitee_emails: "x1@example.org", invite_as: 100 }), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    expectError(await invite(admin, { invitee_emails: "x1@example.org", invite_as: 500 }), "BAD_REQUEST", "Invalid invite_as");
    expectError(await server.api.post(admin, "/invites", { invitee_emails: "x1@example.org" }), "REQUEST_VARIABLE_MISSING", "Missing 'stream_ids' argument");
    expectError(await invite(admin, { invitee_emails: "" }), "BAD_REQUEST", "You must specify at least one email address.");
    // can_invite_users_group: administrators only.
    const admins = await groupId(server, "role:administrators");
    expectSuccess(await server.api.patch(owner, "/realm", { can_invite_users_group: { new: admins } }));
    expectError(await invite(member, { invitee_emails: "x1@example.org" }), "BAD_REQUEST", "Insufficient permission");
    expectError(await invite(moderator, { invitee_emails: "x1@example.org" }), "BAD_REQUEST", "Insufficient permission");
    expectSuccess(await server.api.patch(owner, "/realm", { can_invite_users_group: { new: await groupId(server, "role:members") } }));
    assert.deepEqual(await countRows(server, ["invites"]), before);
    // Owners invite owners; administrators invite administrators and moderators; guests by anyone allowed.
    expectSuccess(await invite(owner, { invitee_emails: "new-owner@example.org", invite_as: 100 }));
    expectSuccess(await invite(admin, { invitee_emails: "new-admin@example.org", invite_as: 200 }));
    expectSuccess(await invite(admin, { invitee_emails: "new-mod@example.org", invite_as: 300 }));
    expectSuccess(await invite(member, { invitee_emails: "new-guest@example.org", invite_as: 600 }));
    const roles = Object.fromEntries((await invites(owner)).map((i) => [i.email, i.invited_as]));
    assert.deepEqual([roles["new-owner@example.org"], roles["new-admin@example.org"], roles["new-mod@example.org"], roles["new-guest@example.org"]], [100, 200, 300, 600]);
  });

  test("channels: accessible ones only; others need permission to add subscribers, except default channels", async () => {
    const { owner, admin, member } = server.fixtures;
    const open = await createStream(server, admin, "invite-open");
    const secret = await createStream(server, owner, "invite-secret", { invite_only: true });
    const lobby = await createStream(server, admin, "invite-lobby");
    expectSuccess(await server.api.post(admin, "/default_streams", { stream_id: lobby }));
    const before = await countRows(server, ["invites"]);
    expectError(await invite(member, { invitee_emails: "y1@example.org", stream_ids: [99999] }), "BAD_REQUEST", "Invalid channel ID 99999. No invites were sent.");
    expectError(await invite(member, { invitee_emails: "y1@example.org", stream_ids: [open, secret] }), "BAD_REQUEST", `Invalid channel ID ${secret}. No invites were sent.`);
    expectSuccess(await server.api.patch(owner, "/realm", { can_add_subscribers_group: { new: await groupId(server, "role:administrators") } }));
    const refusal = "You do not have permission to subscribe other users to channels.";
    expectError(await invite(member, { invitee_emails: "y1@example.org", stream_ids: [open] }), "BAD_REQUEST", refusal);
    expectError(await server.api.post(member, "/invites/multiuse", { stream_ids: [open] }), "BAD_REQUEST", "Insufficient permission");
    assert.deepEqual(await countRows(server, ["invites"]), before);
    expectSuccess(await invite(member, { invitee_emails: "y1@example.org", stream_ids: [lobby] }));
    expectSuccess(await server.api.patch(owner, "/realm", { can_add_subscribers_group: { new: await groupId(server, "role:members") } }));
    expectSuccess(await invite(member, { invitee_emails: "y2@example.org", stream_ids: [open, lobby] }));
    expectSuccess(await invite(owner, { invitee_emails: "y3@example.org", stream_ids: [secret] }));
    expectSuccess(await server.api.delete(admin, "/default_streams", { stream_id: lobby }));
  });

  test("INVITATION_FAILED: invalid addresses stop all; existing accounts are skipped", async () => {
    const { owner, admin, member } = server.fixtures;
    const gone = expectSuccess(await server.api.post(owner, "/users", { email: "departed@example.org", password: "pw-123456789", full_name: "Departed" }));
    expectSuccess(await server.api.delete(owner, `/users/${gone.user_id}`));
    const before = await countRows(server, ["invites"]);
    expectInvitationFailed(
      await invite(admin, { invitee_emails: "not-an-address, z1@example.org, member@example.com" }),
      "Some emails did not validate, so we didn't send any invitations.",
      [["not-an-address", "Invalid address.", false], ["member@example.com", "Already has an account.", false]],
      false,
    );
    expectInvitationFailed(
      await invite(admin, { invitee_emails: "MEMBER@example.com, departed@example.org" }),
      "We weren't able to invite anyone.",
      [["MEMBER@example.com", "Already has an account.", false], ["departed@example.org", "Account has been deactivated.", true]],
      false,
    );
    assert.deepEqual(await countRows(server, ["invites"]), before);
    const queue = await registerQueue(server.api, member, { event_types: ["invites_changed"] });
    expectInvitationFailed(
      await invite(member, { invitee_emails: "z2@example.org, admin@example.com" }),
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      [["admin@example.com", "Already has an account.", false]],
      true,
    );
    assert.ok((await invites(member)).some((i) => i.email === "z2@example.org"), "the others were invited");
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "invites_changed" }]);
  });

  test("DELETE /invites/{id} and resend: one's own, or any as an administrator (owner invitations: owners)", async () => {
    const { owner, admin, moderator, member } = server.fixtures;
    expectSuccess(await invite(member, { invitee_emails: "r1@example.org" }));
    expectSuccess(await invite(owner, { invitee_emails: "r2@example.org", invite_as: 100 }));
    const all = await invites(owner);
    const r1 = all.find((i) => i.email === "r1@example.org")?.id as number;
    const r2 = all.find((i) => i.email === "r2@example.org")?.id as number;
    const multi = tokenOf(await link(admin));
    const multiId = (await invites(admin)).find((i) => i.is_multiuse === true && String(i.link_url).includes(multi))?.id as number;
    for (const verb of ["delete", "resend"] as const) {
      const call = (user: Credentials, id: number) => (verb === "delete" ? server.api.delete(user, `/invites/${id}`) : server.api.post(user, `/invites/${id}/resend`));
      expectError(await call(moderator, r1), "BAD_REQUEST", NOT_ADMIN);
      expectError(await call(admin, r2), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
      expectError(await call(admin, 99999), "BAD_REQUEST", "No such invitation");
      expectError(await call(admin, multiId), "BAD_REQUEST", "No such invitation");
      expectError(await call(server.fixtures.guest, r1), "BAD_REQUEST", "Not allowed for guest users");
    }
    // A resend gives the invitation a new link (its email's): invites_changed, as a revoke.
    const queue = await registerQueue(server.api, member, { event_types: ["invites_changed"] });
    expectSuccess(await server.api.post(member, `/invites/${r1}/resend`));
    expectSuccess(await server.api.post(admin, `/invites/${r1}/resend`));
    expectSuccess(await server.api.delete(admin, `/invites/${r1}`));
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), Array(3).fill({ type: "invites_changed" }));
    expectError(await server.api.delete(admin, `/invites/${r1}`), "BAD_REQUEST", "No such invitation");
    expectError(await server.api.post(member, `/invites/${r1}/resend`), "BAD_REQUEST", "No such invitation");
    expectSuccess(await server.api.delete(owner, `/invites/${r2}`));
    assert.ok(!(await invites(owner)).some((i) => i.id === r1 || i.id === r2));
  });

  test("reusable links: who may create and revoke them; revoked links stop working", async () => {
    const { owner, admin, moderator, member } = server.fixtures;
    expectError(await server.api.post(member, "/invites/multiuse", {}), "BAD_REQUEST", "Insufficient permission");
    expectError(await server.api.post(server.fixtures.guest, "/invites/multiuse", {}), "BAD_REQUEST", "Not allowed for guest users");
    expectError(await server.api.post(admin, "/invites/multiuse", { invite_as: 100 }), "UNAUTHORIZED_PRINCIPAL", NOT_OWNER);
    const url = await link(admin, { invite_as: 600, invite_expires_in_minutes: 30 });
    assert.ok(url.startsWith(`${server.url}/join/`), url);
    const listed = (await invites(admin)).find((i) => i.link_url === url);
    assert.ok(listed);
    assert.deepEqual(Object.keys(listed).sort(), ["expiry_date", "id", "invited", "invited_as", "invited_by_user_id", "is_multiuse", "link_url"]);
    assert.deepEqual([listed.invited_as, listed.is_multiuse, listed.invited_by_user_id, Number(listed.expiry_date) - Number(listed.invited)], [600, true, admin.id, 1800]);
    // Moderators may create links once create_multiuse_invite_group lets them; only administrators revoke others'.
    expectSuccess(await server.api.patch(owner, "/realm", { create_multiuse_invite_group: { new: await groupId(server, "role:moderators") } }));
    const modUrl = await link(moderator);
    const modId = (await invites(moderator)).find((i) => i.link_url === modUrl)?.id as number;
    assert.deepEqual((await invites(moderator)).filter((i) => i.is_multiuse).map((i) => i.id), [modId]);
    expectError(await server.api.delete(moderator, `/invites/multiuse/${listed.id}`), "BAD_REQUEST", NOT_ADMIN);
    expectError(await server.api.delete(admin, `/invites/multiuse/99999`), "BAD_REQUEST", "No such invitation");
    const emailInvite = (await invites(admin)).find((i) => i.is_multiuse === false)?.id as number;
    expectError(await server.api.delete(admin, `/invites/multiuse/${emailInvite}`), "BAD_REQUEST", "No such invitation");
    expectSuccess(await server.api.delete(moderator, `/invites/multiuse/${modId}`));
    expectSuccess(await server.api.delete(admin, `/invites/multiuse/${listed.id}`));
    expectError(await server.api.delete(admin, `/invites/multiuse/${listed.id}`), "BAD_REQUEST", "Invitation has already been revoked");
    expectError(await accept(tokenOf(url)), "INVALID_INVITE", EXPIRED);
    expectError(await register(tokenOf(url), { full_name: "Too Late", password: "pw-123456789", email: "late@example.org" }), "INVALID_INVITE", EXPIRED);
    assert.ok(!(await invites(admin)).some((i) => i.id === listed.id));
    expectSuccess(await server.api.patch(owner, "/realm", { create_multiuse_invite_group: { new: await groupId(server, "role:administrators") } }));
  });

  test("sign-up through a link: role, channels, defaults, events; the password logs in", async () => {
    const { owner, admin } = server.fixtures;
    const room = await createStream(server, admin, "signup-room");
    const hall = await createStream(server, admin, "signup-hall");
    expectSuccess(await server.api.post(admin, "/default_streams", { stream_id: hall }));
    const token = tokenOf(await link(admin, { invite_as: 300, stream_ids: [room] }));
    assert.deepEqual(expectSuccess(await accept(token)), {
      result: "success", msg: "", realm_name: "Test Org", email: null, is_multiuse: true, invited_as: 300,
      expiry_date: (await invites(admin)).find((i) => String(i.link_url).includes(token))?.expiry_date, streams: ["signup-room"],
      email_confirmation: false,
    });
    const queue = await registerQueue(server.api, owner, { event_types: ["realm_user", "subscription", "invites_changed"] });
    const before = await countRows(server, ["users"]);
    expectError(await register(token, { full_name: "Nia New", password: "pw-123456789" }), "REQUEST_VARIABLE_MISSING", "Missing 'email' argument");
    expectError(await register(token, { full_name: "Nia New", password: "pw-123456789", email: "nope" }), "BAD_REQUEST", "Enter a valid email address.");
    expectError(await register(token, { full_name: "Nia New", password: "short", email: "nia@example.org" }), "BAD_REQUEST", "The password is too weak.");
    expectError(await register(token, { full_name: "N", password: "pw-123456789", email: "nia@example.org" }), "BAD_REQUEST", "Name too short!");
    expectError(await register(token, { full_name: "Max Again", password: "pw-123456789", email: "Member@Example.com" }), "BAD_REQUEST", "Member@Example.com already has an account");
    assert.deepEqual(await countRows(server, ["users"]), before);
    const made = expectSuccess(await register(token, { full_name: "Nia New", password: "pw-123456789", email: "nia@example.org" }));
    assert.deepEqual(Object.keys(made).sort(), ["email", "msg", "result", "user_id"]);
    assert.equal(made.email, "nia@example.org");
    const events = withoutIds(await pollEvents(server.api, queue));
    assert.deepEqual(events.map((e) => [e.type, e.op]), [["realm_user", "add"], ["subscription", "peer_add"], ["invites_changed", undefined]]);
    assert.deepEqual(events[1], { type: "subscription", op: "peer_add", stream_ids: [room], user_ids: [made.user_id] });
    const key = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: "nia@example.org", password: "pw-123456789" }));
    assert.equal(key.user_id, made.user_id);
    const nia = { email: "nia@example.org", apiKey: key.api_key as string };
    assert.equal(expectSuccess(await server.api.get(nia, "/users/me")).role, 300);
    const subs = expectSuccess(await server.api.get(nia, "/users/me/subscriptions")).subscriptions.map((s: { name: string }) => s.name);
    assert.deepEqual(subs, ["signup-room"], "not the default channel: the link did not ask for it");
    // A reusable link serves again; with include_realm_default_subscriptions the defaults come too.
    expectSuccess(await register(token, { full_name: "Nils New", password: "pw-123456789", email: "nils@example.org" }));
    const withDefaults = tokenOf(await link(admin, { stream_ids: [room], include_realm_default_subscriptions: true }));
    assert.deepEqual(expectSuccess(await accept(withDefaults)).streams, ["signup-hall", "signup-room"]);
    expectSuccess(await register(withDefaults, { full_name: "Noor New", password: "pw-123456789", email: "noor@example.org" }));
    const noor = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: "noor@example.org", password: "pw-123456789" }));
    const noorSubs = expectSuccess(await server.api.get({ email: "noor@example.org", apiKey: noor.api_key }, "/users/me/subscriptions")).subscriptions;
    assert.deepEqual(noorSubs.map((s: { name: string }) => s.name).sort(), ["signup-hall", "signup-room"]);
    assert.equal(expectSuccess(await server.api.get(admin, `/users/${noor.user_id}`)).user.role, 400);
    expectSuccess(await server.api.delete(admin, "/default_streams", { stream_id: hall }));
  });

  test("a reusable link refuses addresses outside the allowed domains, disposable ones and a pending invitee's, writing nothing", async () => {
    const { owner, admin } = server.fixtures;
    const token = tokenOf(await link(admin));
    const signUp = (email: string) => register(token, { full_name: "Rule Tester", password: "pw-123456789", email });
    const before = await countRows(server, ["users"]);
    // disallow_disposable_email_addresses is on by default.
    expectError(await signUp("someone@Mailinator.com"), "BAD_REQUEST", "Please use your real email address.");
    expectSuccess(await server.api.post(owner, "/realm/domains", { domain: "allowed.test", allow_subdomains: false }));
    expectSuccess(await server.api.post(owner, "/realm/domains", { domain: "corp.test", allow_subdomains: true }));
    expectSuccess(await server.api.patch(owner, "/realm", { emails_restricted_to_domains: true }));
    const outside = (email: string) => `Your email address, ${email}, is not in one of the domains that are allowed to register for accounts in this organization.`;
    for (const email of ["someone@other.test", "someone@sub.allowed.test", "someone@corp.test.evil.test"]) expectError(await signUp(email), "BAD_REQUEST", outside(email));
    expectError(await signUp("some+one@allowed.test"), "BAD_REQUEST", "Email addresses containing + are not allowed in this organization.");
    // The allowed domains, and a subdomain of one that allows them.
    expectSuccess(await invite(admin, { invitee_emails: "pending@allowed.test" }));
    expectError(await signUp("Pending@Allowed.test"), "BAD_REQUEST", "Pending@Allowed.test has a pending invitation: sign up through the link it was sent, or ask an administrator to revoke it.");
    assert.ok((await invites(admin)).some((i) => i.email === "pending@allowed.test"), "the invitation stays open");
    assert.deepEqual(await countRows(server, ["users"]), before);
    expectSuccess(await signUp("Ruth@ALLOWED.test"));
    expectSuccess(await signUp("ron@eng.corp.test"));
    // An expired invitation no longer holds the address.
    expectSuccess(await invite(admin, { invitee_emails: "lapsed@allowed.test", invite_expires_in_minutes: 1 }));
    await server.advanceClock(120);
    expectSuccess(await signUp("lapsed@allowed.test"));
    expectSuccess(await server.api.patch(owner, "/realm", { emails_restricted_to_domains: false }));
    expectSuccess(await server.api.delete(owner, "/realm/domains/allowed.test"));
    expectSuccess(await server.api.delete(owner, "/realm/domains/corp.test"));
  });

  test("POST /invites refuses addresses the organization does not take, in upstream's words", async () => {
    const { owner, admin } = server.fixtures;
    const before = await countRows(server, ["invites"]);
    expectInvitationFailed(
      await invite(admin, { invitee_emails: "a@mailinator.com, b@example.org" }),
      "Some emails did not validate, so we didn't send any invitations.",
      [["a@mailinator.com", "Please use your real email address.", false]],
      false,
    );
    expectSuccess(await server.api.post(owner, "/realm/domains", { domain: "example.org", allow_subdomains: false }));
    expectSuccess(await server.api.patch(owner, "/realm", { emails_restricted_to_domains: true }));
    expectInvitationFailed(
      await invite(admin, { invitee_emails: "c@elsewhere.test, d+x@example.org, e@example.org, member@example.com" }),
      "Some emails did not validate, so we didn't send any invitations.",
      [["c@elsewhere.test", "Outside your domain.", false], ["d+x@example.org", "Email addresses containing + are not allowed.", false], ["member@example.com", "Outside your domain.", false]],
      false,
    );
    assert.deepEqual(await countRows(server, ["invites"]), before);
    // Removing the last domain lifts the restriction; allowing disposable addresses lets them in.
    expectSuccess(await server.api.delete(owner, "/realm/domains/example.org"));
    expectSuccess(await server.api.patch(owner, "/realm", { disallow_disposable_email_addresses: false }));
    expectSuccess(await invite(admin, { invitee_emails: "a@mailinator.com, c@elsewhere.test" }));
    expectSuccess(await server.api.patch(owner, "/realm", { disallow_disposable_email_addresses: true }));
  });

  test("unknown and expired links are refused", async () => {
    const { admin } = server.fixtures;
    expectError(await accept("no-such-token"), "INVALID_INVITE", "We couldn't find that invitation link.");
    expectError(await register("no-such-token", { full_name: "Who Ever", password: "pw-123456789", email: "who@example.org" }), "INVALID_INVITE", "We couldn't find that invitation link.");
    const url = await link(admin, { invite_expires_in_minutes: 1 });
    expectSuccess(await accept(tokenOf(url)));
    await server.advanceClock(120);
    expectError(await accept(tokenOf(url)), "INVALID_INVITE", EXPIRED);
    expectError(await register(tokenOf(url), { full_name: "Who Ever", password: "pw-123456789", email: "who@example.org" }), "INVALID_INVITE", EXPIRED);
    assert.ok(!(await invites(admin)).some((i) => i.link_url === url), "expired invitations are not listed");
  });
});
