/**
 * Outgoing-webhook bots: a channel mention or a direct message POSTs SPEC.md's payload to the
 * bot's service (a real HTTP server here, playing the bot), and the bot's answer is posted back as
 * the bot; failures are retried, then reported to the bot's owner; the sender never waits. The bot
 * server listens on 127.0.0.1, which the server reaches only because OUTGOING_HTTP_ALLOW lets it
 * (test/api/outgoing-webhook-guard.test.ts: what is refused without it).
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { BotHarness, BotServer, mention, ownerNotice, type Message } from "../helpers/outgoing-bots.ts";
import { forEachStore, useServer } from "../helpers/suite.ts";

forEachStore("outgoing webhooks", (store) => {
  let bots: BotServer;
  let hooks: BotHarness;
  let generalId: number;

  const send = (user: Credentials, params: Record<string, unknown>) => server.api.post(user, "/messages", params);
  const createBot = (name: string, url?: string) => hooks.createBot(name, url);
  const waitForMessage = (match: (m: Message) => boolean) => hooks.waitForMessage(match);
  const jobsDone = () => hooks.jobsDone();

  before(async () => {
    bots = new BotServer();
    await bots.listen();
  });
  const server = useServer(store, () => ({ OUTGOING_WEBHOOK_RETRY_BASE_MS: "20", OUTGOING_WEBHOOK_TIMEOUT_SECONDS: "1", OUTGOING_HTTP_ALLOW: "127.0.0.1" }));
  before(async () => {
    hooks = new BotHarness(server, bots);
    await hooks.start();
    generalId = expectSuccess(await server.api.get(server.fixtures.admin, "/get_stream_id", { stream: "general" })).stream_id;
  });
  after(async () => {
    await bots?.close();
  });

  test("a channel mention POSTs SPEC.md's payload; the bot's content is posted back as the bot in the topic", async () => {
    const { member } = server.fixtures;
    const bot = await createBot("Echo Bot");
    bots.script(bot.path, [{ status: 200, body: JSON.stringify({ content: "pong **bold**" }) }]);
    const content = `${mention(bot)} ping`;
    const sent = expectSuccess(await send(member, { type: "stream", to: "general", topic: "hooks", content }));
    const [req] = await bots.waitFor(bot.path, 1);
    assert.equal(req.headers["content-type"], "application/json");
    const { message, ...rest } = req.body!;
    assert.deepEqual(rest, { bot_email: bot.email, bot_full_name: "Echo Bot", data: content, trigger: "mention", token: bot.token });
    assert.match(bot.token, /^[A-Za-z0-9]+$/);
    const stored = expectSuccess(await server.api.get(member, `/messages/${sent.id}`, { apply_markdown: false })).message;
    const rendered = expectSuccess(await server.api.get(member, `/messages/${sent.id}`, { apply_markdown: true })).message;
    assert.deepEqual(Object.keys(message).sort(), [
      "avatar_url", "client", "content", "content_type", "display_recipient", "id", "is_me_message", "reactions", "recipient_id", "rendered_content",
      "sender_email", "sender_full_name", "sender_id", "sender_realm_str", "stream_id", "subject", "submessages", "timestamp", "topic_links", "type",
    ]);
    assert.equal(message.id, sent.id);
    assert.equal(message.type, "stream");
    assert.equal(message.sender_id, member.id);
    assert.equal(message.sender_email, stored.sender_email);
    assert.equal(message.sender_full_name, member.fullName);
    assert.equal(message.sender_realm_str, stored.sender_realm_str);
    assert.equal(typeof message.sender_realm_str, "string");
    // Zulip sends it with client_gravatar=False: always a URL, where GET /messages/{id} lets the client compute it.
    assert.equal(message.avatar_url, expectSuccess(await server.api.get(member, `/users/${member.id}`, { client_gravatar: false })).user.avatar_url);
    assert.match(message.avatar_url, /^https?:/);
    assert.equal(message.client, stored.client);
    assert.equal(message.content, content);
    assert.equal(message.content_type, "text/x-markdown");
    assert.equal(message.rendered_content, rendered.content);
    assert.match(message.rendered_content, /user-mention/);
    assert.equal(message.display_recipient, "general");
    assert.equal(message.stream_id, generalId);
    assert.equal(message.subject, "hooks");
    assert.equal(message.recipient_id, stored.recipient_id);
    assert.equal(message.is_me_message, false);
    assert.equal(message.timestamp, stored.timestamp);
    assert.deepEqual([message.reactions, message.submessages, message.topic_links], [[], [], []]);

    const reply = await waitForMessage((m) => m.sender_id === bot.id && m.type === "stream");
    assert.equal(reply.content, "pong **bold**");
    assert.equal(reply.display_recipient, "general");
    assert.equal(reply.subject, "hooks");
    assert.equal(reply.client, "OutgoingWebhookResponse");
    await jobsDone();
    // The bot's own answer mentions nobody and, sent by a bot, triggers nothing.
    assert.equal(bots.requests(bot.path).length, 1);
  });

  test("a direct message to the bot POSTs trigger direct_message; the legacy response_string answers in the conversation", async () => {
    const { admin } = server.fixtures;
    const bot = await createBot("Direct Bot");
    bots.script(bot.path, [{ status: 200, body: JSON.stringify({ response_string: "legacy answer" }) }]);
    const sent = expectSuccess(await send(admin, { type: "private", to: JSON.stringify([bot.id]), content: "hello bot" }));
    const [req] = await bots.waitFor(bot.path, 1);
    const { message, ...rest } = req.body!;
    assert.deepEqual(rest, { bot_email: bot.email, bot_full_name: "Direct Bot", data: "hello bot", trigger: "direct_message", token: bot.token });
    const stored = expectSuccess(await server.api.get(admin, `/messages/${sent.id}`, { apply_markdown: false })).message;
    assert.equal(message.id, sent.id);
    assert.equal(message.type, "private");
    assert.equal(message.subject, "");
    assert.equal(message.content, "hello bot");
    assert.equal(message.content_type, "text/x-markdown");
    assert.equal(message.rendered_content, "<p>hello bot</p>");
    assert.equal(message.recipient_id, stored.recipient_id);
    assert.equal("stream_id" in message, false);
    const participants = [...message.display_recipient].sort((a: { id: number }, b: { id: number }) => a.id - b.id);
    assert.deepEqual(participants, [
      { id: admin.id, email: admin.email, full_name: admin.fullName, is_mirror_dummy: false },
      { id: bot.id, email: bot.email, full_name: "Direct Bot", is_mirror_dummy: false },
    ].sort((a, b) => a.id - b.id));

    const reply = await waitForMessage((m) => m.sender_id === bot.id && m.type === "private");
    assert.equal(reply.content, "legacy answer");
    assert.equal(reply.recipient_id, stored.recipient_id);
  });

  test("response_not_required and an empty body post nothing; the bot's own sender and unmentioned bots trigger nothing", async () => {
    const { member } = server.fixtures;
    const bot = await createBot("Quiet Bot");
    bots.script(bot.path, [
      { status: 200, body: JSON.stringify({ response_not_required: true, content: "never" }) },
      { status: 200, body: "" },
      { status: 200, body: JSON.stringify({ content: "third" }) },
    ]);
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "quiet", content: `${mention(bot)} one` }));
    await bots.waitFor(bot.path, 1);
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "quiet", content: `${mention(bot)} two` }));
    await bots.waitFor(bot.path, 2);
    // Not mentioned (a silent mention does not count): no request.
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "quiet", content: `@_**${bot.fullName}|${bot.id}** silently` }));
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "quiet", content: `${mention(bot)} three` }));
    await waitForMessage((m) => m.sender_id === bot.id && m.content === "third");
    await jobsDone();
    assert.deepEqual(bots.requests(bot.path).map((r) => r.body!.data), [`${mention(bot)} one`, `${mention(bot)} two`, `${mention(bot)} three`]);
    const fromBot = expectSuccess(
      await server.api.get(member, "/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: "sender", operand: bot.id }]) }),
    ).messages;
    assert.deepEqual(fromBot.map((m: Message) => m.content), ["<p>third</p>"]);
  });

  test("a 500 is retried, and the next answer is posted", async () => {
    const { member } = server.fixtures;
    const bot = await createBot("Flaky Bot");
    bots.script(bot.path, [{ status: 500, body: "oops" }, { status: 200, body: JSON.stringify({ content: "recovered" }) }]);
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "flaky", content: `${mention(bot)} try` }));
    const reply = await waitForMessage((m) => m.sender_id === bot.id && m.subject === "flaky");
    assert.equal(reply.content, "recovered");
    const requests = bots.requests(bot.path);
    assert.equal(requests.length, 2);
    assert.deepEqual(requests[1].body, requests[0].body);
  });

  test("a bot that always fails is tried 1 + 3 times; then the conversation and the owner are told, in Zulip's words", async () => {
    const { member, admin } = server.fixtures;
    const bot = await createBot("Broken Bot");
    bots.script(bot.path, [{ status: 503, body: "down for maintenance" }]);
    const sent = expectSuccess(await send(member, { type: "stream", to: "general", topic: "broken", content: `${mention(bot)} help` }));
    const notice = await waitForMessage(ownerNotice(bot));
    assert.equal(notice.sender_full_name, "Broken Bot");
    assert.deepEqual(notice.display_recipient.map((u: { id: number }) => u.id).sort(), [admin.id, bot.id].sort());
    assert.equal(
      notice.content,
      `[A message](${server.url}/#narrow/channel/${generalId}-general/topic/broken/near/${sent.id}) to your bot @_**Broken Bot** triggered an outgoing webhook.\n` +
        "The webhook got a response with status code *503*.\n" +
        "The response contains the following payload:\n```\ndown for maintenance\n```",
    );
    const failure = await waitForMessage((m) => m.sender_id === bot.id && m.subject === "broken");
    assert.equal(failure.content, "Failure! Third party responded with 503");
    await jobsDone();
    assert.equal(bots.requests(bot.path).length, 4);
  });

  test("an unreachable bot server and a bot that does not answer in time are retried, then reported", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/gone`;
    await new Promise((resolve) => closed.close(resolve));
    const { member } = server.fixtures;
    const dead = await createBot("Dead Bot", deadUrl);
    expectSuccess(await send(member, { type: "private", to: JSON.stringify([dead.id]), content: "anyone there?" }));
    const deadNotice = await waitForMessage(ownerNotice(dead));
    assert.match(deadNotice.content, /\) to your bot @_\*\*Dead Bot\*\* triggered an outgoing webhook\.\nA connection error occurred\. Is my bot server down\?$/);
    assert.match(deadNotice.content, /^\[A message\]\(.*\/#narrow\/dm\/.*\/near\/\d+\)/);

    let release!: () => void;
    const never = new Promise<void>((resolve) => (release = resolve));
    const sleepy = await createBot("Sleepy Bot");
    bots.script(sleepy.path, [{ status: 200, body: JSON.stringify({ content: "too late" }), wait: never }]);
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "sleepy", content: `${mention(sleepy)} wake up` }));
    const notice = await waitForMessage(ownerNotice(sleepy));
    assert.match(notice.content, /triggered an outgoing webhook\.\nRequest timed out after 1 seconds\.$/);
    const failure = await waitForMessage((m) => m.sender_id === sleepy.id && m.subject === "sleepy");
    assert.equal(failure.content, "Failure! Bot is unavailable");
    assert.equal(bots.requests(sleepy.path).length, 4);
    release();
    await jobsDone();
  });

  test("an answer that is not JSON is reported in the conversation and to the owner", async () => {
    const { member } = server.fixtures;
    const bot = await createBot("Garbled Bot");
    bots.script(bot.path, [{ status: 200, body: "<html>not json</html>" }]);
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "garbled", content: `${mention(bot)} speak` }));
    const notice = await waitForMessage(ownerNotice(bot));
    assert.match(
      notice.content,
      /to your bot @_\*\*Garbled Bot\*\* triggered an outgoing webhook\.\nThe outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> Invalid JSON in response\nThe response contains the following payload:\n```\n<html>not json<\/html>\n```$/,
    );
    const failure = await waitForMessage((m) => m.sender_id === bot.id && m.subject === "garbled");
    assert.equal(failure.content, "Failure! Invalid JSON in response");
    await jobsDone();
    assert.equal(bots.requests(bot.path).length, 1, "a bad answer is not retried");
  });

  test("an endless answer is read only up to 1 MiB, then refused as not JSON", async () => {
    const { member } = server.fixtures;
    const bot = await createBot("Verbose Bot");
    bots.script(bot.path, [{ status: 200, body: JSON.stringify({ content: "x".repeat(3 << 20) }) }]);
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "verbose", content: `${mention(bot)} talk` }));
    const failure = await waitForMessage((m) => m.sender_id === bot.id && m.subject === "verbose");
    assert.equal(failure.content, "Failure! Invalid JSON in response");
    const notice = await waitForMessage(ownerNotice(bot));
    assert.ok(notice.content.length < 10_000, "the owner's notice quotes a bounded part of the answer");
    await jobsDone();
  });

  test("a job taken by a process that died (its lease over) is delivered", async () => {
    const { member, realmId } = server.fixtures;
    const bot = await createBot("Orphan Bot");
    bots.script(bot.path, [{ status: 200, body: JSON.stringify({ content: "picked up" }) }]);
    const sent = expectSuccess(await send(member, { type: "stream", to: "general", topic: "orphan", content: "no mention here" }));
    await withDb(server, (db) =>
      db.insertInto("outgoing_webhook_jobs").values({ realm_id: realmId, bot_user_id: bot.id, message_id: sent.id, trigger: "mention", failed_tries: 1, due_at_ms: Date.now() - 1000 }).execute(),
    );
    // Any message wakes the worker (as would its next timer).
    expectSuccess(await send(member, { type: "stream", to: "general", topic: "orphan", content: "wake up" }));
    const [req] = await bots.waitFor(bot.path, 1);
    assert.equal(req.body!.message.id, sent.id);
    assert.equal(req.body!.trigger, "mention");
    const reply = await waitForMessage((m) => m.sender_id === bot.id && m.subject === "orphan");
    assert.equal(reply.content, "picked up");
    await jobsDone();
  });

  test("a slow bot does not slow the sender: the send answers before the bot does", async () => {
    const { member } = server.fixtures;
    const bot = await createBot("Slow Bot");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let answered = false;
    bots.script(bot.path, [{ status: 200, body: JSON.stringify({ content: "finally" }), wait: gate.then(() => void (answered = true)) }]);
    const sent = expectSuccess(await send(member, { type: "stream", to: "general", topic: "slow", content: `${mention(bot)} take your time` }));
    assert.equal(typeof sent.id, "number");
    await bots.waitFor(bot.path, 1);
    assert.equal(answered, false, "the send answered while the bot still held its request");
    release();
    const reply = await waitForMessage((m) => m.sender_id === bot.id && m.subject === "slow");
    assert.equal(reply.content, "finally");
  });
});
