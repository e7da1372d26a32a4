/**
 * events/delivery-order.ts: what a process hands its queues from a shared bus, message events in
 * id order whichever process published them; nothing waits longer than the bound.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DeliveryOrder } from "../../src/events/delivery-order.ts";
import type { Delivery } from "../../src/events/types.ts";

const message = (id: number) => ({ realmId: 1, userIds: [1], event: { type: "message", message: { id }, flags: [] } }) as unknown as Delivery;
const typing = (userId: number) => ({ realmId: 1, userIds: [userId], event: { type: "typing", op: "start" } }) as unknown as Delivery;

/** What the order handed over, as `m<id>` for message events and `t<user>` for others. */
function recorder(waitMs = 60_000) {
  const out: string[] = [];
  let onHandOver = () => {};
  const order = new DeliveryOrder((d) => {
    out.push(d.event.type === "message" ? `m${(d.event as { message: { id: number } }).message.id}` : `t${d.userIds[0]}`);
    onHandOver();
  }, waitMs);
  /** Resolves once `count` deliveries have been handed over. */
  const handedOver = (count: number) =>
    new Promise<void>((resolve) => {
      onHandOver = () => out.length >= count && resolve();
      onHandOver();
    });
  return { out, order, handedOver };
}

test("a message event waits for lower ids; what came after it waits behind it; a lower one goes first", () => {
  const { out, order } = recorder();
  order.startFrom(10);
  order.push(message(11));
  order.drawn([11]);
  order.push(typing(1));
  order.push(message(12));
  assert.deepEqual(out, [], "10 has not come");
  order.push(message(10));
  assert.deepEqual(out, ["m10", "m11", "t1", "m12"]);
  assert.equal(order.floor, 13);
  assert.equal(order.holding, false);
  order.close();
});

test("events and messages in order pass at once; the first id sets the floor when none was set", () => {
  const { out, order } = recorder();
  order.push(typing(1));
  order.push(message(5));
  order.drawn([5]);
  order.push(message(6));
  order.push(typing(2));
  assert.deepEqual(out, ["t1", "m5", "m6", "t2"]);
  assert.equal(order.floor, 7);
});

test("ids a rolled-back transaction drew, named after its events, end the wait for them", () => {
  const { out, order } = recorder();
  order.startFrom(20);
  order.push(message(22));
  order.drawn([22]);
  assert.deepEqual(out, []);
  order.drawn([20, 21]);
  assert.deepEqual(out, ["m22"]);
  order.close();
});

test("an id that never comes is given up on after the bound; one that comes later passes at once", async () => {
  const { out, order, handedOver } = recorder(30);
  order.startFrom(30);
  order.push(message(31));
  order.push(typing(3));
  assert.deepEqual(out, []);
  await handedOver(2);
  assert.deepEqual(out, ["m31", "t3"]);
  order.push(message(30));
  assert.deepEqual(out, ["m31", "t3", "m30"]);
  order.close();
});

test("flush hands over everything held, in id order, and moves the floor past it", () => {
  const { out, order } = recorder();
  order.startFrom(40);
  order.push(message(43));
  order.push(message(42));
  order.push(typing(4));
  order.flush();
  assert.deepEqual(out, ["m42", "m43", "t4"]);
  assert.equal(order.floor, 44);
  order.close();
});
