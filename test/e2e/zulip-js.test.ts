/** End to end with the zulip-js package, as a bot or integration would use Parley. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { test } from "node:test";
import { describeEachStore } from "../helpers/suite.ts";

// zulip-js ships no types: the part of its API this test drives.
type Reply = { result: string; msg: string; [key: string]: unknown };
type Call = (params?: Record<string, unknown>) => Promise<Reply>;
type ZulipClient = {
  config: { apiKey: string };
  callEndpoint: (endpoint: string, method?: string, params?: Record<string, unknown>) => Promise<Reply>;
  typing: { send: Call };
  queues: { register: Call; deregister: Call };
  events: { retrieve: Call };
  users: { retrieve: Call; me: { getProfile: Call; subscriptions: { add: Call } } };
  streams: { subscriptions: { retrieve: Call } };
  messages: { send: Call; retrieve: Call; render: Call; update: Call; getById: Call; getHistoryById: Call; deleteById: Call; flags: { add: Call; remove: Call } };
  reactions: { add: Call; remove: Call };
};
type ZulipConfig = { username: string; realm: string; apiKey?: string; password?: string } | { zuliprc: string };
const zulip = createRequire(import.meta.url)("zulip-js") as (config: ZulipConfig) => Promise<ZulipClient>;

function ok(reply: Reply): Reply {
  assert.equal(reply.result, "success", `zulip-js call failed: ${JSON.stringify(reply)}`);
  return reply;
}

describeEachStore("zulip-js drives Parley", (server) => {
  test("logs in with a password (POST /fetch_api_key) and with a zuliprc", async () => {
    const { member } = server.fixtures;
    const byPassword = await zulip({ username: member.email, password: member.password, realm: server.url });
    assert.equal(byPassword.config.apiKey, member.apiKey);
    const rc = path.join(server.store.dataDir, "zuliprc");
    fs.writeFileSync(rc, `[api]\nemail=${member.email}\nkey=${member.apiKey}\nsite=${server.url}\n`);
    const byRc = await zulip({ zuliprc: rc });
    assert.equal(ok(await byRc.users.me.getProfile()).user_id, member.id);
  });

  test("registers a queue, subscribes, receives the subscription event, lists users", async () => {
    const { member, owner } = server.fixtures;
    const client = await zulip({ username: member.email, apiKey: member.apiKey, realm: server.url });
    const queue = ok(await client.queues.register({ event_types: ["subscription"] }));
    assert.equal(typeof queue.queue_id, "string");
    assert.equal(typeof queue.last_event_id, "number");

    ok(await client.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: "zulip-js e2e" }]) }));
    const reply = ok(await client.events.retrieve({ queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true }));
    const events = reply.events as { type: string; op?: string; subscriptions?: { name: string }[] }[];
    const added = events.find((e) => e.type === "subscription" && e.op === "add");
    assert.ok(added, `no subscription add event in ${JSON.stringify(events)}`);
    assert.deepEqual(added.subscriptions?.map((s) => s.name), ["zulip-js e2e"]);

    const subs = ok(await client.streams.subscriptions.retrieve()).subscriptions as { name: string }[];
    assert.ok(subs.some((s) => s.name === "zulip-js e2e"));

    const members = ok(await client.users.retrieve()).members as { user_id: number; email: string }[];
    for (const id of [member.id, owner.id, server.fixtures.bot.id]) assert.ok(members.some((m) => m.user_id === id), `user ${id} listed`);

    ok(await client.queues.deregister({ queue_id: queue.queue_id }));
    const gone = await client.events.retrieve({ queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true });
    assert.deepEqual({ result: gone.result, code: gone.code }, { result: "error", code: "BAD_EVENT_QUEUE_ID" });
  });

  test("sends, reads with a narrow, flags, reacts, edits and deletes a message", async () => {
    const { member, owner } = server.fixtures;
    const client = await zulip({ username: member.email, apiKey: member.apiKey, realm: server.url });
    const reader = await zulip({ username: owner.email, apiKey: owner.apiKey, realm: server.url });
    ok(await client.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: "zulip-js messages" }]), principals: JSON.stringify([member.id, owner.id]) }));
    const queue = ok(await reader.queues.register({ event_types: ["message", "reaction", "update_message", "delete_message"] }));

    const sent = ok(await client.messages.send({ type: "stream", to: "zulip-js messages", topic: "zulip-js", content: "Hello from **zulip-js**" }));
    const id = sent.id as number;
    const narrow = [{ operator: "channel", operand: "zulip-js messages" }, { operator: "topic", operand: "zulip-js" }];
    const page = ok(await reader.messages.retrieve({ anchor: "newest", num_before: 10, num_after: 0, narrow }));
    const shown = (page.messages as { id: number; content: string; flags: string[] }[]).find((m) => m.id === id);
    assert.equal(shown?.content, "<p>Hello from <strong>zulip-js</strong></p>");
    assert.deepEqual(shown?.flags, []);

    ok(await reader.messages.flags.add({ flag: "read", messages: [id] }));
    ok(await reader.reactions.add({ message_id: id, emoji_name: "octopus" }));
    ok(await client.messages.update({ message_id: id, content: "Edited from zulip-js" }));
    const fetched = ok(await reader.messages.getById({ message_id: id }));
    const message = fetched.message as { content: string; flags: string[]; reactions: { emoji_name: string; user_id: number }[] };
    assert.equal(fetched.raw_content, "Edited from zulip-js");
    assert.deepEqual(message.flags, ["read"]);
    assert.deepEqual(message.reactions.map((r) => [r.emoji_name, r.user_id]), [["octopus", owner.id]]);
    const history = ok(await reader.messages.getHistoryById({ message_id: id })).message_history as unknown[];
    assert.equal(history.length, 2);
    assert.equal(ok(await client.messages.render({ content: "@**nobody**" })).rendered, "<p>@<strong>nobody</strong></p>");

    ok(await client.messages.deleteById({ message_id: id }));
    const reply = ok(await reader.events.retrieve({ queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true }));
    const kinds = (reply.events as { type: string; op?: string }[]).map((e) => (e.op ? `${e.type}:${e.op}` : e.type));
    assert.deepEqual(kinds, ["message", "reaction:add", "update_message", "delete_message"]);
    const gone = await reader.messages.getById({ message_id: id });
    assert.deepEqual({ result: gone.result, msg: gone.msg }, { result: "error", msg: "Invalid message(s)" });
  });
  test("pings presence and sends typing notifications, seen by another client's queue", async () => {
    const { member, owner } = server.fixtures;
    const pinger = await zulip({ username: member.email, apiKey: member.apiKey, realm: server.url });
    const watcher = await zulip({ username: owner.email, apiKey: owner.apiKey, realm: server.url });
    const queue = ok(await watcher.queues.register({ event_types: ["presence", "typing"] }));

    // The mobile app's timer call: POST /users/me/presence, reading `presences` from the reply.
    const ping = ok(await pinger.callEndpoint("/users/me/presence", "POST", { status: "active", new_user_input: "true", ping_only: "false", slim_presence: "true" }));
    const mine = (ping.presences as Record<string, { active_timestamp: number; idle_timestamp: number }>)[String(member.id)];
    assert.equal(typeof mine?.active_timestamp, "number");
    const realm = ok(await watcher.callEndpoint("/realm/presence", "GET"));
    const seen = (realm.presences as Record<string, Record<string, { status: string }>>)[member.email];
    assert.equal(seen?.aggregated?.status, "active");
    const one = ok(await watcher.callEndpoint(`/users/${member.id}/presence`, "GET"));
    assert.equal((one.presence as Record<string, { status: string }>).aggregated?.status, "active");

    ok(await pinger.typing.send({ to: [owner.id], op: "start" }));
    ok(await pinger.typing.send({ to: [owner.id], op: "stop" }));

    const reply = ok(await watcher.events.retrieve({ queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true }));
    const events = reply.events as { type: string; op?: string; sender?: { user_id: number }; user_id?: number }[];
    const presence = events.find((e) => e.type === "presence");
    assert.ok(presence, `no presence event in ${JSON.stringify(events)}`);
    const typing = events.filter((e) => e.type === "typing").map((e) => [e.op, e.sender?.user_id]);
    assert.deepEqual(typing, [["start", member.id], ["stop", member.id]]);
    ok(await watcher.queues.deregister({ queue_id: queue.queue_id }));
  });
  test("a bot written with zulip-js registers, waits for a mention and replies in the topic", async () => {
    const { member, bot } = server.fixtures;
    const client = await zulip({ username: bot.email, apiKey: bot.apiKey, realm: server.url });
    const human = await zulip({ username: member.email, apiKey: member.apiKey, realm: server.url });
    ok(await human.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: "zulip-js bots" }]), principals: JSON.stringify([member.id, bot.id]) }));
    const me = ok(await client.users.me.getProfile());

    // The bot: one queue for messages, long-polled until a message mentions it; it answers in the same place.
    const queue = ok(await client.queues.register({ event_types: ["message"] }));
    const botLoop = (async () => {
      let lastEventId = queue.last_event_id as number;
      for (;;) {
        const reply = ok(await client.events.retrieve({ queue_id: queue.queue_id, last_event_id: lastEventId }));
        for (const event of reply.events as Array<{ id: number; type: string; flags?: string[]; message?: { display_recipient: string; subject: string; content: string; sender_id: number } }>) {
          lastEventId = Math.max(lastEventId, event.id);
          if (event.type !== "message" || !event.message || !event.flags?.includes("mentioned")) continue;
          const asked = event.message;
          ok(await client.messages.send({ type: "stream", to: asked.display_recipient, topic: asked.subject, content: `pong to ${asked.sender_id}` }));
          return;
        }
      }
    })();

    ok(await human.messages.send({ type: "stream", to: "zulip-js bots", topic: "ping pong", content: `@**${me.full_name as string}** ping` }));
    await botLoop;
    const narrow = [{ operator: "channel", operand: "zulip-js bots" }, { operator: "topic", operand: "ping pong" }];
    const page = ok(await human.messages.retrieve({ anchor: "newest", num_before: 5, num_after: 0, narrow, apply_markdown: false }));
    const messages = page.messages as Array<{ sender_id: number; content: string }>;
    assert.deepEqual(messages.map((m) => [m.sender_id, m.content]), [[member.id, `@**${me.full_name as string}** ping`], [bot.id, `pong to ${member.id}`]]);
    ok(await client.queues.deregister({ queue_id: queue.queue_id }));
  });
});
