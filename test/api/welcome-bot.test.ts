/**
 * The Welcome Bot (upstream's onboarding direct messages, FL 416's custom welcome text): every
 * new person, however their account is made (POST /users, an email invitation, a reusable link,
 * the first start's owner), gets its introduction, starred, and then the custom text that applies
 * (the invitation's, else the organization's; "" none); the organization's text is a PATCH /realm
 * setting with its event and register key; administrators preview it with
 * POST /realm/test_welcome_bot_custom_message.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { freshStore } from "../helpers/stores.ts";
import { startServerOnStore } from "../helpers/server.ts";
import { forEachStore, useServer } from "../helpers/suite.ts";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { fl420Validators } from "../helpers/openapi-fl420.ts";
import { linkToken, smtpUrl, TestSmtp, waitFor, type Mail } from "../helpers/smtp.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { createUser } from "../helpers/factories.ts";
import { NO_AUTH, NOT_ADMIN } from "../helpers/errors.ts";

const WELCOME_BOT_EMAIL = "welcome-bot@127.0.0.1";
const PASSWORD = "pw-123456789";

type Message = { id: number; sender_id: number; sender_email: string; sender_full_name: string; content: string; flags: string[]; type: string; display_recipient: unknown };

forEachStore("Welcome Bot", (store) => {
  const smtp = new TestSmtp();
  before(async () => {
    await smtp.start();
  });
  const server = useServer(store, () => ({ SMTP_URL: smtpUrl(smtp), EMAIL_RETRY_BASE_MS: "50" }));
  after(async () => {
    await smtp.stop();
  });

  const patchRealm = (user: Credentials | null, params: Record<string, unknown>) => server.api.patch(user, "/realm", params);
  const preview = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/realm/test_welcome_bot_custom_message", params);

  /** The user's messages from the Welcome Bot, oldest first (rendered as Markdown source). */
  async function fromWelcomeBot(user: Credentials): Promise<Message[]> {
    const narrow = [{ operator: "sender", operand: WELCOME_BOT_EMAIL }];
    const body = expectSuccess(await server.api.get(user, "/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow, apply_markdown: false }));
    return body.messages as Message[];
  }
  /** Credentials of an account just made, from its password. */
  async function logIn(email: string): Promise<Credentials> {
    const { api_key } = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: email, password: PASSWORD }));
    return { email, apiKey: api_key };
  }
  /** The next mail to `to` after the first `seen`. */
  function mailTo(to: string, seen: number): Promise<Mail> {
    return waitFor(`mail to ${to}`, () => smtp.mails.slice(seen).find((m) => m.to.includes(to)));
  }
  /** Invites `email` as `inviter` and signs up through the mailed link; the new account's credentials. */
  async function joinByEmailInvite(inviter: Credentials, email: string, params: Record<string, unknown> = {}): Promise<Credentials> {
    const seen = smtp.mails.length;
    expectSuccess(await server.api.post(inviter, "/invites", { invitee_emails: email, stream_ids: [], notify_referrer_on_join: false, ...params }));
    const token = linkToken(server, await mailTo(email, seen));
    expectSuccess(await server.api.post(null, `/invites/accept/${token}/register`, { full_name: "Ivy Invited", password: PASSWORD }));
    return logIn(email);
  }
  /** The custom text's message as the Welcome Bot sends it. */
  const customMessage = (text: string, fence = "```") => `Here is a note for you from the administrators of Test Org:\n${fence}quote\n${text}\n${fence}`;

  test("POST /users: the new member gets the Welcome Bot's introduction, starred and unread; the bot is announced when first made", async () => {
    const { admin, member } = server.fixtures;
    assert.equal((await registerQueue(server.api, member, { fetch_event_types: ["realm"] })).state.realm_welcome_message_custom_text, "");
    const queue = await registerQueue(server.api, admin, { event_types: ["realm_user", "realm_bot"] });
    const account = await createUser(server, { name: "Wendy Welcome" });
    const messages = await fromWelcomeBot(account);
    assert.equal(messages.length, 1, "no custom message while the organization has none");
    const [intro] = messages;
    assert.deepEqual([intro.type, intro.sender_full_name, intro.sender_email, intro.flags], ["private", "Welcome Bot", WELCOME_BOT_EMAIL, ["starred"]]);
    assert.match(intro.content, /^Hi Wendy Welcome, welcome to Test Org! I'm the Welcome Bot/);
    assert.match(intro.content, /press `r`/);
    assert.doesNotMatch(intro.content, /As an administrator/);
    const state = (await registerQueue(server.api, account, { fetch_event_types: ["message", "update_message_flags", "realm_user", "starred_messages"] })).state as Record<string, any>;
    assert.deepEqual(state.unread_msgs.pms, [{ other_user_id: intro.sender_id, sender_id: intro.sender_id, unread_message_ids: [intro.id] }]);
    assert.deepEqual(state.starred_messages, [intro.id]);
    const bot = (state.realm_users as Array<Record<string, unknown>>).find((u) => u.user_id === intro.sender_id);
    assert.deepEqual([bot?.full_name, bot?.is_bot, bot?.email], ["Welcome Bot", true, WELCOME_BOT_EMAIL]);
    // Made in the same transaction: everyone learns of the bot, administrators of its details too.
    const events = withoutIds(await pollEvents(server.api, queue));
    const botAdded = events.filter((e) => (e.person as { user_id?: number } | undefined)?.user_id === intro.sender_id || (e.bot as { user_id?: number } | undefined)?.user_id === intro.sender_id);
    assert.deepEqual(botAdded.map((e) => `${String(e.type)}/${String(e.op)}`).sort(), ["realm_bot/add", "realm_user/add"]);
    // A second new user: the same bot, not another.
    const second = await createUser(server, { name: "Walt Welcome" });
    assert.deepEqual((await fromWelcomeBot(second)).map((m) => m.sender_id), [intro.sender_id]);
    assert.equal((await pollEvents(server.api, queue)).filter((e) => (e.person as { user_id?: number } | undefined)?.user_id === intro.sender_id).length, 0);
  });

  test("PATCH /realm welcome_message_custom_text: the update event (FL 420 schema) and register key; new users then get it as a second message", async () => {
    const { admin, member, moderator } = server.fixtures;
    const queue = await registerQueue(server.api, member, { event_types: ["realm"] });
    const text = "Read the pinned topic in #**general** first.\n\n```\ncode stays code\n```";
    assert.deepEqual(expectSuccess(await patchRealm(admin, { welcome_message_custom_text: text })).welcome_message_custom_text, "updated");
    expectSuccess(await patchRealm(admin, { welcome_message_custom_text: text }));
    const events = await pollEvents(server.api, queue);
    assert.deepEqual(withoutIds(events), [{ type: "realm", op: "update", property: "welcome_message_custom_text", value: text }]);
    const { event } = fl420Validators();
    assert.ok(event(events[0]), `event does not match the FL 420 file: ${JSON.stringify(event.errors?.slice(0, 3))}`);
    assert.equal((await registerQueue(server.api, member, { fetch_event_types: ["realm"] })).state.realm_welcome_message_custom_text, text);
    const account = await createUser(server, { name: "Nora Note" });
    const messages = await fromWelcomeBot(account);
    assert.equal(messages.length, 2);
    // The text holds a ``` fence, so the quote takes a longer one.
    assert.equal(messages[1].content, customMessage(text, "````"));
    assert.deepEqual(messages.map((m) => m.flags), [["starred"], ["starred"]]);
    expectError(await patchRealm(moderator, { welcome_message_custom_text: "mine" }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await patchRealm(admin, { welcome_message_custom_text: "x".repeat(8001) }), "BAD_REQUEST", "welcome_message_custom_text is too long (limit: 8000 characters)");
    assert.equal((await registerQueue(server.api, member, { fetch_event_types: ["realm"] })).state.realm_welcome_message_custom_text, text);
    expectSuccess(await patchRealm(admin, { welcome_message_custom_text: "" }));
    assert.equal((await fromWelcomeBot(await createUser(server))).length, 1, "an empty text sends nothing more");
  });

  test("POST /realm/test_welcome_bot_custom_message: the administrator gets only the custom message, from the Welcome Bot", async () => {
    const { admin } = server.fixtures;
    const queue = await registerQueue(server.api, admin, { event_types: ["message"] });
    const before = (await fromWelcomeBot(admin)).length;
    const text = "Welcome aboard! Say hi in **#general**.";
    const body = expectSuccess(await preview(admin, { welcome_message_custom_text: text }));
    assert.deepEqual(Object.keys(body).sort(), ["message_id", "msg", "result"]);
    const messages = await fromWelcomeBot(admin);
    assert.equal(messages.length, before + 1, "the introduction is not sent");
    const sent = messages[messages.length - 1];
    assert.equal(sent.id, body.message_id);
    assert.deepEqual([sent.content, sent.sender_full_name, sent.type, sent.flags], [customMessage(text), "Welcome Bot", "private", []]);
    assert.deepEqual((sent.display_recipient as Array<{ email: string }>).map((r) => r.email).sort(), [admin.email, WELCOME_BOT_EMAIL].sort());
    const events = await pollEvents(server.api, queue);
    assert.deepEqual(events.map((e) => (e.message as { id: number }).id), [body.message_id]);
    // The text goes in as written: leading and trailing space, Markdown and all.
    const spaced = expectSuccess(await preview(admin, { welcome_message_custom_text: "  indented\n" }));
    assert.ok(spaced.message_id > body.message_id);
  });

  test("POST /realm/test_welcome_bot_custom_message: refusals, with nothing sent", async () => {
    const { admin, moderator, member, guest, bot } = server.fixtures;
    const count = async () => (await fromWelcomeBot(admin)).length;
    const before = await count();
    expectError(await preview(null, { welcome_message_custom_text: "x" }), "UNAUTHORIZED", NO_AUTH, 401);
    for (const who of [moderator, member, guest, bot]) expectError(await preview(who, { welcome_message_custom_text: "x" }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await preview(admin, { welcome_message_custom_text: "" }), "BAD_REQUEST", "Message must not be empty");
    expectError(await preview(admin, {}), "REQUEST_VARIABLE_MISSING", "Missing 'welcome_message_custom_text' argument");
    expectError(await preview(admin, { welcome_message_custom_text: "y".repeat(8001) }), "BAD_REQUEST", "welcome_message_custom_text is too long (limit: 8000 characters)");
    assert.equal(await count(), before);
    // The limit itself is allowed.
    expectSuccess(await preview(admin, { welcome_message_custom_text: "z".repeat(8000) }));
    assert.equal(await count(), before + 1);
  });

  test("invitations: the invitation's own text, else the organization's; \"\" sends none; only administrators choose it", async () => {
    const { admin, member } = server.fixtures;
    expectSuccess(await patchRealm(admin, { welcome_message_custom_text: "The organization's note." }));
    const own = await joinByEmailInvite(admin, "ivy@example.org", { welcome_message_custom_text: "Ivy, your team is #**general**." });
    assert.deepEqual((await fromWelcomeBot(own)).map((m) => m.content.startsWith("Hi Ivy Invited") ? "intro" : m.content), ["intro", customMessage("Ivy, your team is #**general**.")]);
    const none = await joinByEmailInvite(admin, "ike@example.org", { welcome_message_custom_text: "" });
    assert.equal((await fromWelcomeBot(none)).length, 1, "\"\": no custom message, even though the organization has one");
    const inherited = await joinByEmailInvite(member, "ian@example.org");
    assert.deepEqual((await fromWelcomeBot(inherited)).map((m) => m.content).slice(1), [customMessage("The organization's note.")]);
    // Others may not choose it (upstream refuses rather than ignores); nothing is written.
    const invitesBefore = (expectSuccess(await server.api.get(admin, "/invites")).invites as unknown[]).length;
    const refused = await server.api.post(member, "/invites", { invitee_emails: "iris@example.org", stream_ids: [], welcome_message_custom_text: "mine" });
    expectError(refused, "BAD_REQUEST", NOT_ADMIN);
    expectError(await server.api.post(member, "/invites", { invitee_emails: "iris@example.org", stream_ids: [], welcome_message_custom_text: "" }), "BAD_REQUEST", NOT_ADMIN);
    const long = await server.api.post(admin, "/invites/multiuse", { welcome_message_custom_text: "w".repeat(8001) });
    expectError(long, "BAD_REQUEST", "welcome_message_custom_text is too long (limit: 8000 characters)");
    assert.equal((expectSuccess(await server.api.get(admin, "/invites")).invites as unknown[]).length, invitesBefore);
  });

  test("a reusable link's text reaches who signs up through it, through the emailed confirmation", async () => {
    const { admin } = server.fixtures;
    const url = expectSuccess(await server.api.post(admin, "/invites/multiuse", { welcome_message_custom_text: "Linked in: welcome!" })).invite_link as string;
    const link = /\/join\/([A-Za-z0-9]+)\//.exec(url)?.[1] ?? "";
    // The organization's text changes after the link was made: the link's own still wins.
    expectSuccess(await patchRealm(admin, { welcome_message_custom_text: "Changed since." }));
    const seen = smtp.mails.length;
    expectSuccess(await server.api.post(null, `/invites/accept/${link}/confirm_email`, { email: "lena@example.org" }));
    const token = linkToken(server, await mailTo("lena@example.org", seen));
    expectSuccess(await server.api.post(null, `/invites/accept/${token}/register`, { full_name: "Lena Linked", password: PASSWORD }));
    const messages = await fromWelcomeBot(await logIn("lena@example.org"));
    assert.deepEqual(messages.map((m) => m.content).slice(1), [customMessage("Linked in: welcome!")]);
    expectSuccess(await patchRealm(admin, { welcome_message_custom_text: "" }));
  });
});

forEachStore("Welcome Bot at the first start", (store) => {
  test("the organization's first owner gets the introduction, with the administrators' part, and #general keeps its greeting", async () => {
    const empty = await freshStore(store);
    // No fixtures: the server's own first start makes the organization and its owner.
    const server = await startServerOnStore(empty, {} as Fixtures);
    try {
      const zuliprc = fs.readFileSync(path.join(empty.dataDir, "zuliprc"), "utf8");
      const owner = { email: /email=(.*)/.exec(zuliprc)?.[1] ?? "", apiKey: /key=(.*)/.exec(zuliprc)?.[1] ?? "" };
      const narrow = [{ operator: "sender", operand: WELCOME_BOT_EMAIL }];
      const body = expectSuccess(await server.api.get(owner, "/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow, apply_markdown: false }));
      const messages = body.messages as Message[];
      assert.equal(messages.length, 1);
      assert.match(messages[0].content, /^Hi Owner, welcome to Parley!/);
      assert.match(messages[0].content, /As an administrator, you can invite people/);
      assert.deepEqual(messages[0].flags, ["starred"]);
      const general = expectSuccess(await server.api.get(owner, "/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "channel", operand: "general" }] }));
      assert.equal((general.messages as Message[]).length, 1);
    } finally {
      await server.stop();
    }
  });
});
