/**
 * The registry of processes sharing Redis (events/process-registry.ts): where each listens,
 * which users hold a message queue in the others, and which are restarting. Needs Redis at TEST_REDIS_URL (default
 * redis://127.0.0.1:6379); fails when it is unreachable.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, describe, test } from "node:test";
import pino from "pino";
import { Redis } from "ioredis";
import { ProcessRegistry } from "../../src/events/process-registry.ts";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const log = pino({ level: "silent" });

describe("ProcessRegistry", () => {
  // A key space of its own, so that runs never meet.
  const prefix = `parley:test:${crypto.randomBytes(6).toString("hex")}`;
  const redis = new Redis(REDIS_URL);
  after(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  test("each process sees the others' addresses and message-queue holders, not its own; a process that leaves is gone", async () => {
    const east = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "east", internalUrl: "http://127.0.0.1:9001" }, [1, 2], log);
    const west = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "west", internalUrl: "http://127.0.0.1:9002" }, [], log);
    try {
      assert.equal((await west.stateOf("east")).url, "http://127.0.0.1:9001");
      assert.equal((await east.stateOf("west")).url, "http://127.0.0.1:9002");
      assert.equal((await east.stateOf("north")).url, null);

      assert.deepEqual([...(await west.holdersElsewhere([1, 2, 3]))].sort(), [1, 2]);
      assert.deepEqual([...(await east.holdersElsewhere([1, 2, 3]))], [], "its own holders are not elsewhere");

      west.holderChanged(3, true);
      east.holderChanged(1, false);
      // Each registry writes on one connection in order; a read on it comes after its writes.
      (await west.stateOf("west")).url;
      (await east.stateOf("east")).url;
      assert.deepEqual([...(await west.holdersElsewhere([1, 2, 3]))], [2]);
      assert.deepEqual([...(await east.holdersElsewhere([1, 2, 3]))], [3]);
    } finally {
      await east.leave();
    }
    assert.equal((await west.stateOf("east")).url, null);
    assert.deepEqual([...(await west.holdersElsewhere([1, 2, 3]))], []);
    await west.leave();
  });

  test("a renewal takes processes whose keys expired (they crashed) out of the set, and keeps the live ones", async () => {
    const live = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "live", internalUrl: "http://127.0.0.1:9005" }, [], log);
    try {
      // Two crashed processes: in the set, their address keys expired.
      await redis.sadd(`${prefix}:processes`, "gone-1", "gone-2");
      (live as unknown as { renew(): void }).renew();
      const members = async () => (await redis.smembers(`${prefix}:processes`)).sort();
      const deadline = Date.now() + 5000;
      while ((await members()).includes("gone-2") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(await members(), ["live"]);
    } finally {
      await live.leave();
    }
  });

  test("a process joining again under the same id (after a crash) replaces what it had left", async () => {
    const before = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "south", internalUrl: "http://127.0.0.1:9003" }, [5, 6], log);
    const again = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "south", internalUrl: "http://127.0.0.1:9013" }, [7], log);
    const other = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "other", internalUrl: "http://127.0.0.1:9004" }, [], log);
    try {
      assert.equal((await other.stateOf("south")).url, "http://127.0.0.1:9013");
      assert.deepEqual([...(await other.holdersElsewhere([5, 6, 7]))], [7]);
    } finally {
      await again.leave();
      await other.leave();
      // The crashed run's connection; its keys went with the rejoin.
      await before.leave();
    }
  });

  test("a process stopping gracefully is restarting until it serves again; polls for it wait together, until then or their bound", async () => {
    const stopping = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "north", internalUrl: "http://127.0.0.1:9006" }, [], log);
    const waiting = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "waiting", internalUrl: "http://127.0.0.1:9007" }, [], log);
    try {
      assert.deepEqual(await waiting.stateOf("north"), { url: "http://127.0.0.1:9006", restartingUntilMs: null });
      const deadline = Date.now() + 60_000;
      await stopping.markRestarting(deadline);
      await stopping.leave();
      assert.deepEqual(await waiting.stateOf("north"), { url: null, restartingUntilMs: deadline });

      // A bound already passed answers with the state then; the others wait for the return.
      const early = await waiting.awaitReturn("north", Date.now());
      assert.deepEqual(early, { url: null, restartingUntilMs: deadline });
      const polls = [waiting.awaitReturn("north", deadline), waiting.awaitReturn("north", deadline)];
      const back = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "north", internalUrl: "http://127.0.0.1:9016" }, [], log);
      try {
        assert.deepEqual((await waiting.stateOf("north")).restartingUntilMs, deadline, "joined, but not yet listening");
        await back.serving();
        assert.deepEqual(await Promise.all(polls), [{ url: "http://127.0.0.1:9016", restartingUntilMs: null }, { url: "http://127.0.0.1:9016", restartingUntilMs: null }]);
      } finally {
        await back.leave();
      }

      // Past its deadline the mark is gone: a process that never came back.
      const brief = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "north", internalUrl: "http://127.0.0.1:9026" }, [], log);
      await brief.markRestarting(Date.now() + 50);
      await brief.leave();
      assert.notEqual((await waiting.stateOf("north")).restartingUntilMs, null);
      assert.deepEqual(await waiting.awaitReturn("north", Date.now() + 60_000), { url: null, restartingUntilMs: null });

      // A process that stops answers the polls it holds, and holds no more.
      const again = await ProcessRegistry.join(REDIS_URL, prefix, { processId: "north", internalUrl: "http://127.0.0.1:9036" }, [], log);
      await again.markRestarting(Date.now() + 60_000);
      await again.leave();
      const held = waiting.awaitReturn("north", Date.now() + 60_000);
      waiting.releaseWaits();
      assert.equal(await held, null);
      assert.equal(await waiting.awaitReturn("north", Date.now() + 60_000), null);
    } finally {
      await waiting.leave();
    }
  });
});
