/**
 * Search narrows read through the index's own order (SQLite's FTS5 drives the query): anchors,
 * ranges and found_* flags as for any narrow; tokens folded alike on both stores.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { describeEachStore } from "../helpers/suite.ts";

const H = (w: string) => `<span class="highlight">${w}</span>`;

type Page = { messages: Array<{ id: number; match_content?: string; match_subject?: string }>; anchor: number; found_anchor: boolean; found_oldest: boolean; found_newest: boolean };

describeEachStore("search ranges and tokens", (server) => {
  let owner: TestUser, member: TestUser;
  /** Messages in "orchard", oldest first; `kiwi` marks the ones holding the word. */
  const all: number[] = [];
  const kiwi: number[] = [];
  const ids: Record<string, number> = {};

  async function send(topic: string, content: string, user: TestUser = owner): Promise<number> {
    return expectSuccess(await server.api.post(user, "/messages", { type: "stream", to: "orchard", topic, content, read_by_sender: true })).id as number;
  }
  async function page(q: string, params: Record<string, unknown>): Promise<Page> {
    const body = expectSuccess(await server.api.get(member, "/messages", { narrow: [{ operator: "search", operand: q }], ...params }));
    return body as unknown as Page;
  }
  const idsOf = (p: Page) => p.messages.map((m) => m.id);
  const flags = (p: Page) => [p.found_anchor, p.found_oldest, p.found_newest];

  before(async () => {
    ({ owner, member } = server.fixtures);
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "orchard" }], principals: [owner.id, member.id] }));
    for (let i = 0; i < 12; i++) {
      const has = i % 3 !== 1;
      const id = await send("fruit", has ? `kiwi number ${i}` : `apple number ${i}`);
      all.push(id);
      if (has) kiwi.push(id);
    }
    ids.cafe = await send("Café talk", "the ＣＡＦＥ serves naïve crêpes");
    ids.split = await send("alpha beta", "gamma delta");
    ids.phrase = await send("misc", "beta gamma");
  });

  test("newest and oldest: the last and first matches in id order", async () => {
    let p = await page("KIWI", { anchor: "newest", num_before: 3, num_after: 0 });
    assert.deepEqual(idsOf(p), kiwi.slice(-3));
    assert.deepEqual(flags(p), [false, false, true]);
    p = await page("kiwi", { anchor: "oldest", num_before: 0, num_after: 3 });
    assert.deepEqual(idsOf(p), kiwi.slice(0, 3));
    assert.deepEqual(flags(p), [false, true, false]);
    p = await page("kiwi", { anchor: "newest", num_before: 100, num_after: 0 });
    assert.deepEqual(idsOf(p), kiwi);
    assert.deepEqual(flags(p), [false, true, true]);
  });

  test("an anchor in the middle, on a match or not, with and without include_anchor", async () => {
    const onMatch = kiwi[3];
    let p = await page("kiwi", { anchor: onMatch, num_before: 2, num_after: 2 });
    assert.deepEqual(idsOf(p), kiwi.slice(1, 6));
    assert.deepEqual(flags(p), [true, false, false]);
    p = await page("kiwi", { anchor: onMatch, num_before: 2, num_after: 0, include_anchor: false });
    assert.deepEqual(idsOf(p), kiwi.slice(1, 3));
    assert.deepEqual(flags(p), [false, false, false]);
    p = await page("kiwi", { anchor: onMatch, num_before: 0, num_after: 2, include_anchor: false });
    assert.deepEqual(idsOf(p), kiwi.slice(4, 6));
    // An anchor that does not match: the range around it, found_anchor false.
    const miss = all[4];
    assert.ok(!kiwi.includes(miss));
    p = await page("kiwi", { anchor: miss, num_before: 1, num_after: 1 });
    assert.deepEqual(idsOf(p), kiwi.filter((id) => id < miss).slice(-1).concat(kiwi.filter((id) => id > miss).slice(0, 1)));
    assert.equal(p.found_anchor, false);
    p = await page("kiwi", { anchor: kiwi[kiwi.length - 1], num_before: 0, num_after: 5 });
    assert.deepEqual(idsOf(p), [kiwi[kiwi.length - 1]]);
    assert.deepEqual(flags(p), [true, false, true]);
  });

  test("first_unread and message_ids go through the search too", async () => {
    const p = await page("kiwi", { anchor: "first_unread", num_before: 0, num_after: 2 });
    assert.equal(p.anchor, kiwi[0]);
    assert.deepEqual(idsOf(p), kiwi.slice(0, 3));
    const body = expectSuccess(await server.api.get(member, "/messages", { message_ids: all.slice(0, 4), narrow: [{ operator: "search", operand: "kiwi" }] }));
    assert.deepEqual((body.messages as Page["messages"]).map((m) => m.id), kiwi.filter((id) => all.slice(0, 4).includes(id)));
  });

  test("case, accents and compatibility forms fold alike, in the index and in highlights", async () => {
    for (const q of ["cafe", "CAFÉ", "ｃａｆé", "naive crepes", "NAÏVE"]) assert.deepEqual(idsOf(await page(q, { anchor: "newest", num_before: 10, num_after: 0 })), [ids.cafe], q);
    const [m] = (await page("cafe naive", { anchor: "newest", num_before: 10, num_after: 0 })).messages;
    assert.equal(m.match_subject, `${H("Café")} talk`);
    assert.equal(m.match_content, `<p>the ${H("ＣＡＦＥ")} serves ${H("naïve")} crêpes</p>`);
  });

  test("a phrase matches adjacent words of the topic or of the content, never across them", async () => {
    assert.deepEqual(idsOf(await page('"beta gamma"', { anchor: "newest", num_before: 10, num_after: 0 })), [ids.phrase]);
    assert.deepEqual(idsOf(await page('"alpha beta"', { anchor: "newest", num_before: 10, num_after: 0 })), [ids.split]);
    assert.deepEqual(idsOf(await page('"gamma delta"', { anchor: "newest", num_before: 10, num_after: 0 })), [ids.split]);
  });
});
