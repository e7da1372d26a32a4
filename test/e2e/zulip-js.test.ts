/** End to end with the zulip-js package, as a bot or integration would use Parley. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { STORES } from "../helpers/stores.ts";

// zulip-js ships no types: the part of its API this test drives.
type Reply = { result: string; msg: string; [key: string]: unknown };
type Call = (params?: Record<string, unknown>) => Promise<Reply>;
type ZulipClient = {
  config: { apiKey: string };
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

for (const kind of STORES) {
  describe(`zulip-js drives Parley [${kind}]`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(kind);
    });
    after(async () => {
      await server?.stop();
    });

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
  });
}
