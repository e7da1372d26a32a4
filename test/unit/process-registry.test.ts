/**
 * The registry of processes sharing Redis (events/process-registry.ts): where each listens, and
 * which users hold a message queue in the others. Needs Redis at TEST_REDIS_URL (default
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
      assert.equal(await west.urlOf("east"), "http://127.0.0.1:9001");
      assert.equal(await east.urlOf("west"), "http://127.0.0.1:9002");
      assert.equal(await east.urlOf("north"), null);

      assert.deepEqual([...(await west.holdersElsewhere([1, 2, 3]))].sort(), [1, 2]);
      assert.deepEqual([...(await east.holdersElsewhere([1, 2, 3]))], [], "its own holders are not elsewhere");

      west.holderChanged(3, true);
      east.holderChanged(1, false);
      // Each registry writes on one connection in order; a read on it comes after its writes.
      await west.urlOf("west");
      await east.urlOf("east");
      assert.deepEqual([...(await west.holdersElsewhere([1, 2, 3]))], [2]);
      assert.deepEqual([...(await east.holdersElsewhere([1, 2, 3]))], [3]);
    } finally {
      await east.leave();
    }
    assert.equal(await west.urlOf("east"), null);
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
      assert.equal(await other.urlOf("south"), "http://127.0.0.1:9013");
      assert.deepEqual([...(await other.holdersElsewhere([5, 6, 7]))], [7]);
    } finally {
      await again.leave();
      await other.leave();
      // The crashed run's connection; its keys went with the rejoin.
      await before.leave();
    }
  });
});
