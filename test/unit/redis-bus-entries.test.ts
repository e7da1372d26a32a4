/**
 * What the Redis event bus (events/redis-bus.ts) writes to its stream: one entry per turn of the
 * publishing process's event loop, read by the other processes in publish order. Needs Redis at
 * TEST_REDIS_URL (default redis://127.0.0.1:6379); fails when it is unreachable.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, describe, test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import pino from "pino";
import { Redis } from "ioredis";
import { RedisBus } from "../../src/events/redis-bus.ts";
import type { Delivery } from "../../src/events/types.ts";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const log = pino({ level: "silent" });

function typing(userId: number): Delivery {
  return { realmId: 1, userIds: [userId], event: { type: "typing", op: "start", message_type: "direct", sender: { user_id: userId, email: `u${userId}@example.com` }, recipients: [] } } as unknown as Delivery;
}

/** Resolves once `received` holds `count` deliveries. */
async function until(received: Delivery[], count: number): Promise<void> {
  for (let i = 0; i < 500 && received.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(received.length, count);
}

describe("RedisBus stream entries", () => {
  const key = `parley:test:${crypto.randomBytes(6).toString("hex")}`;
  const redis = new Redis(REDIS_URL);
  after(async () => {
    await redis.del(key);
    redis.disconnect();
  });

  test("what one turn publishes is one entry; the next turn's is another; a reader gets all in order", async () => {
    const writer = await RedisBus.connect(REDIS_URL, key, { backlogLength: 1000, orderWaitMs: 1000, log });
    const reader = await RedisBus.connect(REDIS_URL, key, { backlogLength: 1000, orderWaitMs: 1000, log });
    const local: Delivery[] = [];
    const received: Delivery[] = [];
    writer.subscribe((d) => local.push(d));
    reader.subscribe((d) => received.push(d));
    await writer.start(null);
    await reader.start(null);
    try {
      writer.publish([typing(1)]);
      writer.publish([typing(2), typing(3)]);
      assert.equal(local.length, 3, "the publishing process's own queues get them at once");
      await nextTurn();
      writer.publish([typing(4)]);
      await until(received, 4);
      assert.deepEqual(received.map((d) => d.userIds[0]), [1, 2, 3, 4]);
      assert.equal(await redis.xlen(key), 2);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  test("closing appends what is still waiting for its turn", async () => {
    const writer = await RedisBus.connect(REDIS_URL, key, { backlogLength: 1000, orderWaitMs: 1000, log });
    await writer.start(null);
    const before = await redis.xlen(key);
    writer.publish([typing(5)]);
    await writer.close();
    assert.equal(await redis.xlen(key), before + 1);
    const [[, fields]] = (await redis.xrevrange(key, "+", "-", "COUNT", 1)) as [string, string[]][];
    assert.match(fields.join(" "), /"userIds":\[5\]/);
  });
});
