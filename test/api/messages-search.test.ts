/** Full-text search narrows (FTS5 / PostgreSQL text search) with highlighting, and GET /messages/matches_narrow, on both stores. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const H = (w: string) => `<span class="highlight">${w}</span>`;

type Found = { id: number; match_content?: string; match_subject?: string; content: string };

describeEachStore("search", (server) => {
  let owner: TestUser, admin: TestUser, member: TestUser, guest: TestUser;
  const ids: Record<string, number> = {};

  async function send(to: string, topic: string, content: string, user: TestUser = owner): Promise<number> {
    return expectSuccess(await server.api.post(user, "/messages", { type: "stream", to, topic, content, read_by_sender: true })).id as number;
  }
  async function search(user: TestUser, narrow: unknown[]): Promise<Found[]> {
    return expectSuccess(await server.api.get(user, "/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow })).messages as Found[];
  }
  const searchFor = (user: TestUser, q: string, extra: unknown[] = []) => search(user, [...extra, { operator: "search", operand: q }]);

  before(async () => {
    ({ owner, admin, member, guest } = server.fixtures);
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "zoo" }], principals: [owner.id, member.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "farm" }], principals: [owner.id] }));
    ids.fox = await send("zoo", "animals", "The quick brown fox jumps");
    ids.dogs = await send("zoo", "animals", "Lazy dogs sleep all day");
    ids.topic = await send("zoo", "Fox news", "nothing to see");
    ids.tags = await send("zoo", "misc", "quick & dirty <b>tags</b> aren't html");
    ids.link = await send("zoo", "misc", "a [fox link](https://example.com/fox) here", member);
    ids.farm = await send("farm", "barn", "a fox in the farm");
    ids.dm = expectSuccess(await server.api.post(admin, "/messages", { type: "direct", to: [owner.id], content: "secret fox plans", read_by_sender: true })).id as number;
  });

  test("finds words in content and topic, case-insensitively, with highlights", async () => {
    const found = await searchFor(member, "FOX");
    assert.deepEqual(found.map((m) => m.id), [ids.fox, ids.topic, ids.link]);
    const byId = new Map(found.map((m) => [m.id, m]));
    assert.equal(byId.get(ids.fox)?.match_content, `<p>The quick brown ${H("fox")} jumps</p>`);
    assert.equal(byId.get(ids.fox)?.match_subject, "animals");
    assert.equal(byId.get(ids.topic)?.match_subject, `${H("Fox")} news`);
    assert.equal(byId.get(ids.topic)?.match_content, "<p>nothing to see</p>");
    // The link's text is marked; its href and title are left alone.
    const link = byId.get(ids.link)?.match_content ?? "";
    assert.ok(link.includes(`>${H("fox")} link</a>`), link);
    assert.ok(link.includes('href="https://example.com/fox"'), link);
    assert.equal(byId.get(ids.fox)?.content, "<p>The quick brown fox jumps</p>");
  });

  test("all words must match; quoted phrases need adjacent words", async () => {
    assert.deepEqual((await searchFor(member, "quick fox")).map((m) => m.id), [ids.fox]);
    assert.deepEqual((await searchFor(member, '"brown fox"')).map((m) => m.id), [ids.fox]);
    assert.deepEqual((await searchFor(member, '"fox brown"')).map((m) => m.id), []);
    assert.deepEqual((await searchFor(member, "giraffe")).map((m) => m.id), []);
    assert.deepEqual((await searchFor(member, "?!")).map((m) => m.id), []);
    const two = await search(member, [{ operator: "search", operand: "lazy" }, { operator: "search", operand: "day" }]);
    assert.deepEqual(two.map((m) => [m.id, m.match_content]), [[ids.dogs, `<p>${H("Lazy")} dogs sleep all ${H("day")}</p>`]]);
  });

  test("escaped text and entities: words around them match, markup is never split", async () => {
    const found = await searchFor(member, "dirty tags aren't");
    assert.deepEqual(found.map((m) => m.id), [ids.tags]);
    assert.equal(found[0].match_content, `<p>quick &amp; ${H("dirty")} &lt;b&gt;${H("tags")}&lt;/b&gt; ${H("aren")}'${H("t")} html</p>`);
    // Entity names are not words of the text.
    assert.deepEqual((await searchFor(member, "tags lt")).map((m) => m.id), []);
    assert.deepEqual((await searchFor(member, "amp")).map((m) => m.id), []);
  });

  test("search combines with other terms and respects visibility", async () => {
    assert.deepEqual((await searchFor(member, "fox", [{ operator: "topic", operand: "misc" }])).map((m) => m.id), [ids.link]);
    assert.deepEqual((await searchFor(member, "fox", [{ operator: "sender", operand: owner.id }])).map((m) => m.id), [ids.fox, ids.topic]);
    // Public history needs a channel narrow; DMs between others never show.
    assert.deepEqual((await searchFor(member, "fox", [{ operator: "channel", operand: "farm" }])).map((m) => m.id), [ids.farm]);
    assert.ok(!(await searchFor(member, "fox")).some((m) => m.id === ids.farm || m.id === ids.dm));
    assert.deepEqual((await searchFor(owner, "fox", [{ operator: "is", operand: "dm" }])).map((m) => m.id), [ids.dm]);
    assert.deepEqual((await searchFor(guest, "fox")).map((m) => m.id), []);
  });

  test("messages without a search term carry no match fields", async () => {
    const plain = await search(member, [{ operator: "channel", operand: "zoo" }]);
    assert.ok(plain.every((m) => m.match_content === undefined && m.match_subject === undefined));
  });

  test("matches_narrow: matching ids only, keyed as strings, highlighted for searches", async () => {
    const all = [ids.fox, ids.dogs, ids.topic, ids.tags, ids.link, ids.farm, ids.dm];
    let body = expectSuccess(await server.api.get(member, "/messages/matches_narrow", { msg_ids: all, narrow: [{ operator: "search", operand: "fox" }] }));
    assert.deepEqual(Object.keys(body.messages).sort(), [ids.fox, ids.topic, ids.link].map(String).sort());
    assert.deepEqual(body.messages[String(ids.fox)], { match_content: `<p>The quick brown ${H("fox")} jumps</p>`, match_subject: "animals" });
    assert.deepEqual(body.messages[String(ids.topic)], { match_content: "<p>nothing to see</p>", match_subject: `${H("Fox")} news` });
    body = expectSuccess(await server.api.get(member, "/messages/matches_narrow", { msg_ids: all, narrow: [{ operator: "topic", operand: "misc" }] }));
    assert.deepEqual(body.messages, {
      [String(ids.tags)]: { match_content: "<p>quick &amp; dirty &lt;b&gt;tags&lt;/b&gt; aren't html</p>", match_subject: "misc" },
      [String(ids.link)]: { match_content: '<p>a <a href="https://example.com/fox">fox link</a> here</p>', match_subject: "misc" },
    });
    // Only messages the caller received are checked: public history does not count here.
    body = expectSuccess(await server.api.get(member, "/messages/matches_narrow", { msg_ids: [ids.farm, ids.dm], narrow: [] }));
    assert.deepEqual(body.messages, {});
    body = expectSuccess(await server.api.get(owner, "/messages/matches_narrow", { msg_ids: [ids.farm, ids.dm], narrow: [["stream", "farm"]] }));
    assert.deepEqual(Object.keys(body.messages), [String(ids.farm)]);
  });

  test("matches_narrow validation and errors", async () => {
    expectError(await server.api.get(member, "/messages/matches_narrow", { narrow: [] }), "REQUEST_VARIABLE_MISSING", "Missing 'msg_ids' argument");
    expectError(await server.api.get(member, "/messages/matches_narrow", { msg_ids: [1] }), "REQUEST_VARIABLE_MISSING", "Missing 'narrow' argument");
    expectError(await server.api.get(member, "/messages/matches_narrow", { msg_ids: "[1", narrow: [] }), "BAD_REQUEST", "msg_ids is not valid JSON");
    const res = await server.api.get(member, "/messages/matches_narrow", { msg_ids: [ids.fox], narrow: [{ operator: "bogus", operand: "x" }] });
    expectError(res, "BAD_NARROW", "Invalid narrow operator: unknown operator bogus");
    expectError(await server.api.get(member, "/messages/matches_narrow", { msg_ids: [ids.fox], narrow: [{ operator: "search", operand: " " }] }), "BAD_REQUEST", "operand cannot be blank.");
    expectError(await server.api.get(null, "/messages/matches_narrow", { msg_ids: [ids.fox], narrow: [] }), "UNAUTHORIZED", NO_AUTH, 401);
  });
});
