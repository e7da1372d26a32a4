/**
 * Two server processes on one store and one Redis: an action on either reaches the queues held
 * by the other; while one restarts gracefully, the other holds the polls of its queues. Needs
 * Redis at TEST_REDIS_URL (default redis://127.0.0.1:6379).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ApiClient, expectError, expectSuccess } from "../helpers/client.ts";
import { getEvents, registerQueue } from "../helpers/events.ts";
import { freePort } from "../helpers/ports.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { STORES } from "../helpers/stores.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A second process serving the first one's store (its organization and fixtures), on `port` (a restart) or a free one. */
async function startPeer(first: TestServer, port?: number): Promise<{ url: string; api: ApiClient; stop(): Promise<void> }> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env, HOST: "127.0.0.1", PORT: String(port), DATA_DIR: first.store.dataDir, EXTERNAL_URL: first.url,
    LOG_LEVEL: "info", PARLEY_TEST_CONTROL: "1", REDIS_URL,
  };
  delete env.DATABASE_URL;
  if (first.store.databaseUrl) env.DATABASE_URL = first.store.databaseUrl;
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, "bin/parley.js"), "serve"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('"msg":"Parley is listening"')) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`peer exited with ${code}:\n${out}`)));
  });
  return {
    url,
    api: new ApiClient(url),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

for (const store of STORES) {
  describe(`events across two processes with Redis [${store}]`, () => {
    let first: TestServer;
    let peer: Awaited<ReturnType<typeof startPeer>>;
    before(async () => {
      first = await startServer(store, { REDIS_URL });
      peer = await startPeer(first);
    });
    after(async () => {
      await peer?.stop();
      await first?.stop();
    });

    test("each process names its queues; an action on one reaches queues held by the other", async () => {
      const { member, admin } = first.fixtures;
      const onFirst = await registerQueue(first.api, member, { event_types: ["realm_user"] });
      const onPeer = await registerQueue(peer.api, member, { event_types: ["realm_user"] });
      assert.equal(onFirst.queueId.split(":")[0], new URL(first.url).port);
      assert.equal(onPeer.queueId.split(":")[0], new URL(peer.url).port);
      // A queue lives in the process that made it (a proxy routes by the id's prefix); a poll that
      // reaches another process is passed on to it.
      expectSuccess(await getEvents(peer.api, member, { queue_id: onPeer.queueId, last_event_id: -1, dont_block: true }));
      const passedOn = expectSuccess(await getEvents(peer.api, member, { queue_id: onFirst.queueId, last_event_id: -1, dont_block: true }));
      assert.equal(passedOn.queue_id, onFirst.queueId);

      const waitOnPeer = getEvents(peer.api, member, { queue_id: onPeer.queueId, last_event_id: -1 });
      expectSuccess(await first.api.post(admin, "/users", { email: "far@example.com", password: "pw-123456789", full_name: "Far Away" }));
      // The realm's first new user also makes the Welcome Bot (its welcome), announced in the same transaction.
      const remote = expectSuccess(await waitOnPeer).events.filter((e: Record<string, unknown>) => e.type === "realm_user");
      assert.deepEqual(remote.map((e: { person: { full_name: string } }) => e.person.full_name), ["Far Away", "Welcome Bot"]);
      const local = expectSuccess(await getEvents(first.api, member, { queue_id: onFirst.queueId, last_event_id: -1, dont_block: true }));
      assert.deepEqual(local.events.map((e: { person: { full_name: string } }) => e.person.full_name), ["Far Away", "Welcome Bot"]);

      const waitOnFirst = getEvents(first.api, member, { queue_id: onFirst.queueId, last_event_id: local.events[local.events.length - 1].id });
      expectSuccess(await peer.api.post(admin, "/users", { email: "near@example.com", password: "pw-123456789", full_name: "Near By" }));
      const back = expectSuccess(await waitOnFirst).events.filter((e: Record<string, unknown>) => e.type === "realm_user");
      assert.deepEqual(back.map((e: { person: { full_name: string } }) => e.person.full_name), ["Near By"]);
    });

    test("events requests for the other process's queue are passed on: a long poll, a DELETE naming it in the body; another user's queue stays theirs", async () => {
      const { member, admin } = first.fixtures;
      const onFirst = await registerQueue(first.api, member, { event_types: ["realm_user"] });
      // Someone else naming the queue gets what the owner answers them: it is not theirs.
      const stranger = await getEvents(peer.api, admin, { queue_id: onFirst.queueId, last_event_id: -1, dont_block: true });
      assert.equal(stranger.status, 400);
      assert.equal(stranger.body.code, "BAD_EVENT_QUEUE_ID");
      // A long poll through the peer waits at the owner and returns what it gets.
      const waiting = getEvents(peer.api, member, { queue_id: onFirst.queueId, last_event_id: -1 });
      expectSuccess(await peer.api.post(admin, "/users", { email: "via@example.com", password: "pw-123456789", full_name: "Via Peer" }));
      const got = expectSuccess(await waiting).events.filter((e: Record<string, unknown>) => e.type === "realm_user");
      assert.deepEqual(got.map((e: { person: { full_name: string } }) => e.person.full_name), ["Via Peer"]);
      // python-zulip-api's deregister: DELETE with the queue id in a form body.
      const removed = await fetch(`${peer.url}/api/v1/events`, {
        method: "DELETE",
        headers: { authorization: `Basic ${Buffer.from(`${member.email}:${member.apiKey}`).toString("base64")}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ queue_id: onFirst.queueId }).toString(),
      });
      assert.equal(removed.status, 200, await removed.clone().text());
      const gone = await getEvents(first.api, member, { queue_id: onFirst.queueId, last_event_id: -1, dont_block: true });
      assert.equal(gone.body.code, "BAD_EVENT_QUEUE_ID");
    });

    test("a passed-on poll's long answer reaches the client compressed once, by this process (http/compression.ts)", async () => {
      const { member, owner } = first.fixtures;
      const onFirst = await registerQueue(first.api, member, { event_types: ["message"] });
      const url = `${peer.url}/api/v1/events?queue_id=${encodeURIComponent(onFirst.queueId)}&last_event_id=-1`;
      const waiting = fetch(url, { headers: { authorization: `Basic ${Buffer.from(`${member.email}:${member.apiKey}`).toString("base64")}`, "accept-encoding": "br" } });
      const content = "A long direct message, compressed on its way. ".repeat(100);
      expectSuccess(await first.api.post(owner, "/messages", { type: "direct", to: JSON.stringify([member.id]), content }));
      const answer = await waiting;
      assert.equal(answer.headers.get("content-encoding"), "br");
      const body = (await answer.json()) as { events: Array<{ message: { content: string } }> };
      assert.ok(body.events[0].message.content.includes("compressed on its way"));
    });

    test("a poll for the queue of a process restarting gracefully waits for it and then gets its events; the queue is kept", async () => {
      const { member, admin } = first.fixtures;
      const onPeer = await registerQueue(peer.api, member, { event_types: ["realm_user"] });
      const port = Number(new URL(peer.url).port);
      await peer.stop();
      // Down, but its queue is saved: not BAD_EVENT_QUEUE_ID. A poll that must not block gets an
      // empty answer at once; one without credentials is refused as ever.
      const now = expectSuccess(await getEvents(first.api, member, { queue_id: onPeer.queueId, last_event_id: -1, dont_block: true }));
      assert.deepEqual({ events: now.events, queue_id: now.queue_id }, { events: [], queue_id: onPeer.queueId });
      expectError(await getEvents(first.api, null, { queue_id: onPeer.queueId, last_event_id: -1, dont_block: true }), "UNAUTHORIZED", NO_AUTH, 401);
      // A long poll waits here; what happens meanwhile reaches the queue once its process is back.
      const waiting = getEvents(first.api, member, { queue_id: onPeer.queueId, last_event_id: -1 });
      expectSuccess(await first.api.post(admin, "/users", { email: "meanwhile@example.com", password: "pw-123456789", full_name: "Meanwhile" }));
      peer = await startPeer(first, port);
      const got = expectSuccess(await waiting);
      assert.equal(got.queue_id, onPeer.queueId);
      assert.deepEqual(got.events.map((e: { person: { full_name: string } }) => e.person.full_name), ["Meanwhile"]);
    });
  });
}
