/** events/message-order.ts: committed transactions publish in message-id order, and never wait on each other in a cycle. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MessageOrder, type MessageTicket } from "../../src/events/message-order.ts";

/** Records the order in which tickets' turns come. */
function recorder() {
  const published: string[] = [];
  const publishWhenTurn = async (name: string, ticket: MessageTicket) => {
    await ticket.turn();
    published.push(name);
    ticket.close();
  };
  return { published, publishWhenTurn };
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test("a higher id that commits first waits for the lower one", async () => {
  const order = new MessageOrder();
  const { published, publishWhenTurn } = recorder();
  const low = order.ticket();
  const high = order.ticket();
  const fillLow = low.reserve();
  const fillHigh = high.reserve();
  fillLow(10);
  fillHigh(11);
  const highDone = publishWhenTurn("high", high);
  await settle();
  assert.deepEqual(published, []);
  await publishWhenTurn("low", low);
  await highDone;
  assert.deepEqual(published, ["low", "high"]);
  assert.equal(order.openCount, 0);
});

test("an insert whose id is not known yet holds later ids back; a rollback releases them", async () => {
  const order = new MessageOrder();
  const { published, publishWhenTurn } = recorder();
  const pending = order.ticket();
  const committed = order.ticket();
  pending.reserve(); // in flight: it could still draw a lower id
  committed.reserve()(20);
  const done = publishWhenTurn("committed", committed);
  await settle();
  assert.deepEqual(published, []);
  pending.close(); // rolled back
  await done;
  assert.deepEqual(published, ["committed"]);
});

test("a lower id still open holds back, a higher one does not", async () => {
  const order = new MessageOrder();
  const { published, publishWhenTurn } = recorder();
  const later = order.ticket();
  later.reserve()(31);
  const first = order.ticket();
  first.reserve()(30);
  await publishWhenTurn("first", first);
  assert.deepEqual(published, ["first"]);
  later.close();
});

test("interleaved multi-message transactions wait by their lowest id, not in a cycle", async () => {
  const order = new MessageOrder();
  const { published, publishWhenTurn } = recorder();
  const a = order.ticket();
  const b = order.ticket();
  a.reserve()(5);
  b.reserve()(7);
  a.reserve()(9);
  const both = Promise.all([publishWhenTurn("b", b), publishWhenTurn("a", a)]);
  await both;
  assert.deepEqual(published, ["a", "b"]);
});

test("a transaction without messages never waits", async () => {
  const order = new MessageOrder();
  const open = order.ticket();
  open.reserve(); // another transaction's insert in flight
  const plain = order.ticket();
  await plain.turn();
  plain.close();
  open.close();
  assert.equal(order.openCount, 0);
});
