/**
 * Event queues across restarts (src/events/persist.ts): a graceful stop answers waiting polls and
 * saves the queues, the next start on the same port restores them with their ids, options and
 * unacknowledged events; queues idle past their lifespan are dropped at load; a crash (SIGKILL)
 * loses them and clients get BAD_EVENT_QUEUE_ID; with Redis, a restart reads the event stream on
 * from where the stop left it, so the saved queues also get what another process published
 * meanwhile, unless the stream no longer reaches back (then they are dropped). The tests run in order on one store and restart its server (on the
 * same port: queue ids and the saved file name it). Needs Redis at TEST_REDIS_URL.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { expectError, expectSuccess, type ApiResponse, type Credentials } from "../helpers/client.ts";
import { getEvents, registerQueue, type Queue } from "../helpers/events.ts";
import { startServerOnStore, type TestServer } from "../helpers/server.ts";
import { Redis } from "ioredis";
import { busChannel } from "../../src/events/redis-bus.ts";
import { describeEachStore } from "../helpers/suite.ts";

type Event = Record<string, unknown> & { id: number };

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

function expectBadQueue(res: ApiResponse, queueId: string): void {
  expectError(res, "BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${queueId}`);
  assert.equal(res.body.queue_id, queueId);
}

/** Starts the server's store again on its port (queue ids and the saved file are named for it). */
function restartOf(server: TestServer, env: Record<string, string> = {}): Promise<TestServer> {
  return startServerOnStore(server.store, server.fixtures, { ...env, PORT: new URL(server.url).port });
}

async function sendPrivate(server: TestServer, from: Credentials, to: { id: number }, content: string): Promise<number> {
  return expectSuccess(await server.api.post(from, "/messages", { type: "private", to: JSON.stringify([to.id]), content })).id;
}

/** The queue's pending events after `lastEventId`, without waiting (nothing newer is acknowledged). */
async function pendingOn(server: TestServer, queue: Queue, lastEventId = queue.lastEventId): Promise<Event[]> {
  return expectSuccess(await getEvents(server.api, queue.user, { queue_id: queue.queueId, last_event_id: lastEventId, dont_block: true })).events;
}

describeEachStore("event queues across restarts", (server) => {
  const port = () => new URL(server.url).port;
  const savedFile = () => path.join(server.store.dataDir, `event-queues.${port()}.json`);
  const restart = async () => {
    server.replace(await restartOf(server));
  };
  const pending = (queue: Queue, lastEventId?: number) => pendingOn(server, queue, lastEventId);

  let kept: Queue;

  test("a graceful restart answers the waiting poll, keeps queues with their options and unacknowledged events, drops idle ones", async () => {
    const { owner, member, admin } = server.fixtures;
    kept = await registerQueue(server.api, member, { event_types: ["message"], apply_markdown: true });
    const waiting = await registerQueue(server.api, member, { event_types: ["message"] });
    const shortLived = await registerQueue(server.api, member, { queue_lifespan_secs: 1 });
    // The test server's clock stands still (the queues were touched at this time); the next one starts at real time.
    const touchedMs: number = expectSuccess(await server.api.post(null, "/__test/advance_clock", { seconds: 0 })).now_ms;
    const firstId = await sendPrivate(server, owner, member, "before the restart");
    const before = await pending(kept);
    assert.deepEqual(
      before.map((e) => [e.id, e.type, (e.message as Record<string, unknown>).id]),
      [[0, "message", firstId]],
    );
    // A long poll that acknowledges the message and waits. The probe without last_event_id 0
    // fails once the poll's acknowledgement is in, so the poll is then waiting.
    const poll = getEvents(server.api, member, { queue_id: waiting.queueId, last_event_id: 0 });
    for (;;) {
      const probe = await getEvents(server.api, member, { queue_id: waiting.queueId, last_event_id: -1, dont_block: true });
      if (probe.status !== 200) {
        expectError(probe, "BAD_REQUEST", "An event newer than -1 has already been pruned!");
        break;
      }
    }
    await server.stopProcess();
    const answered = expectSuccess(await poll);
    assert.deepEqual(answered.events, [], "the waiting poll is answered with nothing new");
    assert.equal(answered.queue_id, waiting.queueId);
    assert.equal(fs.statSync(savedFile()).mode & 0o777, 0o600, "the saved queues (message content) are private");

    // Usually past already: the short-lived queue's second of idleness must be over at load.
    while (Date.now() <= touchedMs + 1000) await new Promise((resolve) => setTimeout(resolve, touchedMs + 1001 - Date.now()));
    await restart();
    assert.ok(!fs.existsSync(savedFile()), "the saved file is read once");
    assert.deepEqual(await pending(kept), before, "same queue_id, same unacknowledged events and ids");
    assert.deepEqual(await pending(waiting, 0), []);
    expectBadQueue(await getEvents(server.api, member, { queue_id: shortLived.queueId, last_event_id: -1, dont_block: true }), shortLived.queueId);
    // New events reach the restored queues, with the options they registered with.
    expectSuccess(await server.api.post(admin, "/users", { email: "restarted@example.com", password: "pw-123456789", full_name: "Re Started" }));
    const secondId = await sendPrivate(server, owner, member, "after *the* restart");
    const after = await pending(kept, 0);
    assert.deepEqual(
      after.map((e) => [e.id, e.type]),
      [[1, "message"]],
      "event_types still hold: no realm_user event",
    );
    const message = after[0].message as Record<string, unknown>;
    assert.equal(message.id, secondId);
    assert.equal(message.content, "<p>after <em>the</em> restart</p>", "apply_markdown still holds");
    kept.lastEventId = 1;
    const waited = expectSuccess(await getEvents(server.api, member, { queue_id: waiting.queueId, last_event_id: 0 }));
    assert.deepEqual(
      waited.events.map((e: Event) => [e.id, e.type, (e.message as Record<string, unknown>).content]),
      [[1, "message", "after *the* restart"]],
    );
  });

  test("after a crash (SIGKILL) the queues are gone: BAD_EVENT_QUEUE_ID, and a new queue works", async () => {
    const { owner, member } = server.fixtures;
    const fresh = await registerQueue(server.api, member);
    await server.killProcess();
    assert.ok(!fs.existsSync(savedFile()));
    await restart();
    for (const queue of [kept, fresh]) {
      expectBadQueue(await getEvents(server.api, member, { queue_id: queue.queueId, last_event_id: queue.lastEventId, dont_block: true }), queue.queueId);
    }
    const again = await registerQueue(server.api, member, { event_types: ["message"] });
    const id = await sendPrivate(server, owner, member, "after the crash");
    assert.deepEqual(
      (await pending(again)).map((e) => [e.id, (e.message as Record<string, unknown>).id]),
      [[0, id]],
    );
  });
});

describeEachStore("event queues across restarts with Redis", { env: { REDIS_URL } }, (server) => {
  test("a restart keeps the queues and delivers what another process published while it was down; a lost stream drops them", async () => {
    const { owner, member } = server.fixtures;
    const queue = await registerQueue(server.api, member, { event_types: ["message"] });
    const first = await sendPrivate(server, owner, member, "before the restart");
    await server.stopProcess();
    server.replace(await restartOf(server, { REDIS_URL }));
    assert.deepEqual((await pendingOn(server, queue)).map((e) => [e.id, (e.message as Record<string, unknown>).id]), [[0, first]]);

    // While this process is stopped, another one on the same store and Redis sends messages for
    // the queue: the restarted process reads them from the stream into the saved queue.
    await server.stopProcess();
    const peer = await startServerOnStore(server.store, server.fixtures, { REDIS_URL });
    const meanwhile: number[] = [];
    try {
      meanwhile.push(await sendPrivate(peer, owner, member, "while it was stopped"));
      meanwhile.push(await sendPrivate(peer, member, owner, "and a reply"));
    } finally {
      await peer.stopProcess();
    }
    server.replace(await restartOf(server, { REDIS_URL }));
    assert.deepEqual(
      (await pendingOn(server, queue, 0)).map((e) => [e.id, (e.message as Record<string, unknown>).id]),
      [[1, meanwhile[0]], [2, meanwhile[1]]],
    );
    const after = await sendPrivate(server, owner, member, "after");
    assert.deepEqual((await pendingOn(server, queue, 2)).map((e) => (e.message as Record<string, unknown>).id), [after]);

    // Redis loses the stream (restarted without its data) while the process is down: what the
    // saved queues missed cannot be known, so they are dropped and the client registers again.
    await server.stopProcess();
    const redis = new Redis(REDIS_URL);
    try {
      await redis.del(busChannel({ databaseUrl: server.store.databaseUrl ?? null, dataDir: server.store.dataDir }));
    } finally {
      redis.disconnect();
    }
    server.replace(await restartOf(server, { REDIS_URL }));
    expectBadQueue(await getEvents(server.api, member, { queue_id: queue.queueId, last_event_id: 3, dont_block: true }), queue.queueId);
  });
});
