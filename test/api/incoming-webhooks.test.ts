/**
 * Incoming webhooks: the generic JSON integration (POST /api/v1/external/json?api_key=...),
 * posting to a channel and topic, to the bot's owner without a channel, telling the owner about a
 * missing channel (once per ten minutes) while the integration gets success; the same notice for
 * a bot's POST /messages; incoming-webhook bots refused everywhere else.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { describeEachStore } from "../helpers/suite.ts";

type Posted = { status: number; body: Record<string, unknown> };

describeEachStore("incoming webhooks", (server) => {
  let hook: Credentials & { id: number };
  let generalId: number;

  before(async () => {
    const { member, owner } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "alerts-room" }], principals: [owner.id, member.id] }));
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "alerts-room" })).stream_id;
    const made = expectSuccess(await server.api.post(member, "/bots", { full_name: "Monitor Hook", short_name: "monitor", bot_type: 2 }));
    const email = `monitor-bot@${new URL(server.url).hostname}`;
    hook = { id: made.user_id, email, apiKey: made.api_key } as Credentials & { id: number };
  });

  /** POSTs a raw body to /external/json with the given query. */
  async function postJson(query: Record<string, string>, body: string, headers: Record<string, string> = {}): Promise<Posted> {
    const res = await fetch(`${server.url}/api/v1/external/json?${new URLSearchParams(query)}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const latest = (where: { recipientOf?: number; content?: string } = {}) =>
    withDb(server, (db) => {
      let q = db.selectFrom("messages").select(["id", "sender_id", "stream_id", "topic", "content", "sending_client", "recipient_id"]).orderBy("id", "desc");
      if (where.content) q = q.where("content", "like", `%${where.content}%`);
      return q.executeTakeFirst();
    });
  const messageCount = () => withDb(server, async (db) => Number((await db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n));

  test("posts the payload, pretty-printed as upstream's json.dumps(indent=2), to the channel and topic", async () => {
    const payload = '{"status": "firing", "count": 3, "labels": {"host": "db-1", "ok": false, "none": null}, "list": [1, 2], "empty": {}, "name": "é"}';
    const res = await postJson({ api_key: hook.apiKey, stream: "alerts-room", topic: "disk" }, payload);
    assert.deepEqual(res, { status: 200, body: { result: "success", msg: "" } });
    const row = await latest();
    assert.deepEqual([row?.sender_id, row?.stream_id, row?.topic, row?.sending_client], [hook.id, generalId, "disk", "ZulipJSONWebhook"]);
    assert.equal(
      row?.content,
      '```json\n{\n  "status": "firing",\n  "count": 3,\n  "labels": {\n    "host": "db-1",\n    "ok": false,\n    "none": null\n  },\n  "list": [\n    1,\n    2\n  ],\n  "empty": {},\n  "name": "\\u00e9"\n}\n```',
    );
    // No topic in the URL: the integration's own, "JSON"; the channel by id; an array payload.
    assert.equal((await postJson({ api_key: hook.apiKey, stream: String(generalId) }, "[1]")).status, 200);
    const second = await latest();
    assert.deepEqual([second?.stream_id, second?.topic, second?.content], [generalId, "JSON", "```json\n[\n  1\n]\n```"]);
  });

  test("without a channel, the bot's owner gets it as a direct message; HTTP Basic works too", async () => {
    const { member } = server.fixtures;
    const basic = `Basic ${Buffer.from(`${hook.email}:${hook.apiKey}`).toString("base64")}`;
    const res = await postJson({}, '{"ping": true}', { authorization: basic });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const row = await latest();
    assert.equal(row?.stream_id, null);
    assert.equal(row?.sender_id, hook.id);
    const seen = expectSuccess(await server.api.get(member, "/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: "dm", operand: [hook.id] }]) }));
    assert.equal((seen.messages as Array<{ id: number }>)[0]?.id, row?.id);
  });

  test("a missing channel: success for the integration, one notice to the owner per ten minutes", async () => {
    const { member } = server.fixtures;
    const before = await messageCount();
    assert.equal((await postJson({ api_key: hook.apiKey, stream: "no-such-room" }, "{}")).status, 200);
    const notice = await latest();
    assert.equal(notice?.content, `Your bot \`${hook.email}\` tried to send a message to channel #**no-such-room**, but that channel does not exist. Click [here](#channels/new) to create it.`);
    const bot = await withDb(server, (db) => db.selectFrom("users").select(["full_name"]).where("id", "=", notice!.sender_id).executeTakeFirstOrThrow());
    assert.equal(bot.full_name, "Notification Bot");
    const inbox = expectSuccess(await server.api.get(member, "/messages", { anchor: "newest", num_before: 1, num_after: 0 }));
    assert.equal((inbox.messages as Array<{ id: number }>)[0]?.id, notice?.id, "the owner received it");
    assert.equal((await postJson({ api_key: hook.apiKey, stream: "99999" }, "{}")).status, 200);
    assert.equal(await messageCount(), before + 1, "no second notice within ten minutes");
  });

  test("a bot's POST /messages to a missing channel: the error, and its owner told", async () => {
    const { member } = server.fixtures;
    const made = expectSuccess(await server.api.post(member, "/bots", { full_name: "Poster Bot", short_name: "poster" }));
    const poster = { email: `poster-bot@${new URL(server.url).hostname}`, apiKey: made.api_key } as Credentials;
    expectError(await server.api.post(poster, "/messages", { type: "stream", to: "missing-room", topic: "t", content: "hi" }), "STREAM_DOES_NOT_EXIST", "Channel 'missing-room' does not exist");
    const notice = await latest();
    assert.equal(notice?.content, `Your bot \`${poster.email}\` tried to send a message to channel #**missing-room**, but that channel does not exist. Click [here](#channels/new) to create it.`);
    expectError(await server.api.post(poster, "/messages", { type: "stream", to: JSON.stringify(99999), topic: "t", content: "hi" }), "STREAM_DOES_NOT_EXIST", "Channel with ID '99999' does not exist");
    assert.equal((await latest())?.id, notice?.id, "rate limited");
  });

  test("incoming-webhook bots may only send messages", async () => {
    expectError(await server.api.get(hook, "/users/me"), "BAD_REQUEST", "This API is not available to incoming webhook bots.");
    expectError(await server.api.post(hook, "/register", {}), "BAD_REQUEST", "This API is not available to incoming webhook bots.");
    expectSuccess(await server.api.post(hook, "/messages", { type: "stream", to: "alerts-room", topic: "direct", content: "sent by the API" }));
  });

  test("refusals: bad or missing keys, deactivated bots, malformed JSON; nothing posted", async () => {
    const before = await messageCount();
    assert.deepEqual(await postJson({ api_key: "nope", stream: "alerts-room" }, "{}"), { status: 401, body: { result: "error", msg: "Invalid API key", code: "UNAUTHORIZED" } });
    assert.deepEqual(await postJson({ api_key: "a".repeat(32), stream: "alerts-room" }, "{}"), { status: 401, body: { result: "error", msg: "Invalid API key", code: "UNAUTHORIZED" } });
    assert.equal((await postJson({ stream: "alerts-room" }, "{}")).status, 401);
    const bad = await postJson({ api_key: hook.apiKey, stream: "alerts-room" }, "{not json");
    assert.deepEqual([bad.status, bad.body.msg], [400, "Malformed JSON"]);
    assert.equal(await messageCount(), before);
  });
});
