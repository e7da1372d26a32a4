/** GET /messages (anchors, narrows, visibility) and GET /messages/{message_id}, on both stores. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const NEWEST = 10_000_000_000_000_000;

describeEachStore("GET /messages", (server) => {
  let owner: TestUser, admin: TestUser, moderator: TestUser, member: TestUser, guest: TestUser;
  const ids: Record<string, number> = {};
  const streamIds: Record<string, number> = {};
  let anchors: number[] = [];

  async function subscribe(user: TestUser, name: string, principals: number[], extra: Record<string, unknown> = {}) {
    expectSuccess(await server.api.post(user, "/users/me/subscriptions", { subscriptions: [{ name }], principals, ...extra }));
  }
  async function send(user: TestUser, to: string, topic: string, content: string): Promise<number> {
    return expectSuccess(await server.api.post(user, "/messages", { type: "stream", to, topic, content, read_by_sender: true })).id as number;
  }
  async function dm(user: TestUser, to: number[], content: string): Promise<number> {
    return expectSuccess(await server.api.post(user, "/messages", { type: "direct", to, content, read_by_sender: true })).id as number;
  }
  async function fetch(user: TestUser, params: Record<string, unknown>) {
    return expectSuccess(await server.api.get(user, "/messages", { anchor: "newest", num_before: 100, num_after: 0, ...params }));
  }
  async function idsOf(user: TestUser, narrow: unknown[], params: Record<string, unknown> = {}): Promise<number[]> {
    return ((await fetch(user, { narrow, ...params })).messages as Array<{ id: number }>).map((m) => m.id);
  }
  function badNarrow(res: Awaited<ReturnType<TestServer["api"]["get"]>>, desc: string) {
    expectError(res, "BAD_NARROW", `Invalid narrow operator: ${desc}`);
    assert.equal(res.body.desc, desc);
  }

  before(async () => {
    ({ owner, admin, moderator, member, guest } = server.fixtures);
    await subscribe(owner, "general", [owner.id, admin.id, moderator.id, member.id, guest.id]);
    await subscribe(owner, "secret", [owner.id, member.id], { invite_only: true, history_public_to_subscribers: true });
    await subscribe(owner, "protected", [owner.id], { invite_only: true, history_public_to_subscribers: false });
    await subscribe(owner, "lonely", [owner.id]);
    await subscribe(owner, "anchors", [owner.id, member.id]);
    const subs = expectSuccess(await server.api.get(owner, "/users/me/subscriptions")).subscriptions as Array<{ name: string; stream_id: number }>;
    for (const s of subs) streamIds[s.name] = s.stream_id;
    ids.hello = await send(owner, "general", "alpha", "hello world");
    ids.link = await send(member, "general", "Alpha", "second **bold** message with https://example.com link");
    ids.resolved = await send(admin, "general", "✔ done", "resolved topic");
    ids.secret = await send(owner, "secret", "plans", "secret plans");
    ids.dmToMember = await dm(owner, [member.id], "hi member");
    ids.dmToOwner = await dm(member, [owner.id], "hi owner");
    ids.group = await dm(owner, [member.id, admin.id], "group hello");
    ids.others = await dm(admin, [moderator.id], "not for member");
    ids.before = await send(owner, "protected", "t", "before joining");
    await subscribe(owner, "protected", [member.id]);
    ids.after = await send(owner, "protected", "t", "after joining");
    ids.lonely = await send(owner, "lonely", "t", "nobody here");
    ids.mention = await send(member, "general", "beta", "ping @**Olivia Owner**");
    anchors = [];
    for (let i = 1; i <= 5; i++) anchors.push(await send(owner, "anchors", "count", `a${i}`));
  });

  test("without a narrow: the caller's personal history, newest last, with the response fields", async () => {
    const body = await fetch(member, {});
    const got = (body.messages as Array<{ id: number }>).map((m) => m.id);
    const expected = [ids.hello, ids.link, ids.resolved, ids.secret, ids.dmToMember, ids.dmToOwner, ids.group, ids.after, ids.mention, ...anchors];
    assert.deepEqual(got, expected);
    assert.equal(body.anchor, NEWEST);
    assert.equal(body.found_anchor, false);
    assert.equal(body.found_newest, true);
    assert.equal(body.found_oldest, true);
    assert.equal(body.history_limited, false);
    const first = (body.messages as Array<Record<string, unknown>>)[0];
    assert.equal(first.content, "<p>hello world</p>");
    assert.equal(first.display_recipient, "general");
    assert.equal(first.subject, "alpha");
    assert.deepEqual(first.flags, []);
    const mine = (body.messages as Array<Record<string, unknown>>).find((m) => m.id === ids.link);
    assert.deepEqual(mine?.flags, ["read"]);
  });

  test("anchors: newest, oldest, an id, include_anchor, first_unread, clamping", async () => {
    const narrow = [{ operator: "channel", operand: "anchors" }];
    let body = await fetch(member, { narrow, num_before: 2 });
    assert.deepEqual((body.messages as Array<{ id: number }>).map((m) => m.id), anchors.slice(3));
    assert.deepEqual([body.found_anchor, body.found_oldest, body.found_newest], [false, false, true]);
    body = await fetch(member, { narrow, anchor: "oldest", num_before: 0, num_after: 2 });
    assert.deepEqual((body.messages as Array<{ id: number }>).map((m) => m.id), anchors.slice(0, 2));
    assert.deepEqual([body.anchor, body.found_anchor, body.found_oldest, body.found_newest], [0, false, true, false]);
    body = await fetch(member, { narrow, anchor: String(anchors[2]), num_before: 1, num_after: 1 });
    assert.deepEqual((body.messages as Array<{ id: number }>).map((m) => m.id), anchors.slice(1, 4));
    assert.deepEqual([body.anchor, body.found_anchor, body.found_oldest, body.found_newest], [anchors[2], true, false, false]);
    body = await fetch(member, { narrow, anchor: anchors[2], include_anchor: false, num_before: 0, num_after: 10 });
    assert.deepEqual((body.messages as Array<{ id: number }>).map((m) => m.id), anchors.slice(3));
    assert.deepEqual([body.found_anchor, body.found_oldest, body.found_newest], [false, false, true]);
    body = await fetch(member, { narrow, anchor: anchors[0], num_before: 5, num_after: 0 });
    assert.deepEqual([(body.messages as Array<{ id: number }>).map((m) => m.id), body.found_oldest, body.found_anchor], [[anchors[0]], true, true]);
    body = await fetch(member, { narrow, anchor: anchors[2], num_before: 0, num_after: 0 });
    assert.deepEqual([(body.messages as Array<{ id: number }>).map((m) => m.id), body.found_anchor, body.found_oldest, body.found_newest], [[anchors[2]], true, false, false]);
    body = await fetch(member, { narrow, anchor: "first_unread", num_before: 0, num_after: 1 });
    assert.deepEqual([(body.messages as Array<{ id: number }>).map((m) => m.id), body.anchor, body.found_anchor], [anchors.slice(0, 2), anchors[0], true]);
    body = await fetch(member, { narrow, anchor: undefined, use_first_unread_anchor: true, num_before: 0, num_after: 1 });
    assert.equal(body.anchor, anchors[0]);
    // The sender has read everything: first_unread falls back to the newest message.
    body = await fetch(owner, { narrow, anchor: "first_unread", num_before: 1, num_after: 1 });
    assert.deepEqual([(body.messages as Array<{ id: number }>).map((m) => m.id), body.anchor, body.found_newest], [[anchors[4]], NEWEST, true]);
    assert.equal((await fetch(member, { narrow, anchor: "-5", num_before: 0, num_after: 1 })).anchor, 0);
    assert.equal((await fetch(member, { narrow, anchor: "99999999999999999999", num_before: 1 })).anchor, NEWEST);
  });

  test("message_ids returns the visible ones among those asked", async () => {
    const body = expectSuccess(await server.api.get(member, "/messages", { message_ids: [ids.hello, ids.others, ids.lonely, 999999] }));
    assert.deepEqual((body.messages as Array<{ id: number }>).map((m) => m.id), [ids.hello]);
    assert.equal(body.anchor, undefined);
    assert.deepEqual([body.found_anchor, body.found_oldest, body.found_newest, body.history_limited], [false, false, false, false]);
    const res = await server.api.get(member, "/messages", { message_ids: [ids.hello], anchor: "newest" });
    expectError(res, "INCOMPATIBLE_PARAMETERS", "Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor");
  });

  test("range validation errors", async () => {
    expectError(await server.api.get(member, "/messages", { num_before: 1, num_after: 0 }), "BAD_REQUEST", "Missing 'anchor' argument.");
    expectError(await server.api.get(member, "/messages", { anchor: "soon", num_before: 1 }), "BAD_REQUEST", "Invalid anchor");
    expectError(await server.api.get(member, "/messages", { anchor: "newest", num_before: 5000, num_after: 1 }), "BAD_REQUEST", "Too many messages requested (maximum 5000).");
    expectError(await server.api.get(member, "/messages", { anchor: 5, num_before: 1, num_after: 1, include_anchor: false }), "BAD_REQUEST", "The anchor can only be excluded at an end of the range");
    expectError(await server.api.get(member, "/messages", { anchor: "newest", num_before: -1 }), "BAD_REQUEST", "num_before is too small");
    expectError(await server.api.get(null, "/messages", { anchor: "newest", num_before: 1 }), "UNAUTHORIZED", NO_AUTH, 401);
  });

  test("channel, stream, topic, sender, id and near narrows (names, ids, legacy pairs, negation)", async () => {
    const general = [ids.hello, ids.link, ids.resolved, ids.mention];
    assert.deepEqual(await idsOf(member, [{ operator: "channel", operand: "general" }]), general);
    assert.deepEqual(await idsOf(member, [{ operator: "channel", operand: streamIds.general }]), general);
    assert.deepEqual(await idsOf(member, [["stream", "GENERAL"]]), general);
    assert.deepEqual(await idsOf(member, [{ operator: "channel", operand: "general" }, { operator: "topic", operand: "ALPHA" }]), [ids.hello, ids.link]);
    assert.deepEqual(await idsOf(member, [{ operator: "channel", operand: "general", negated: true }, { operator: "is", operand: "dm", negated: true }]), [ids.secret, ids.after, ...anchors]);
    assert.deepEqual(await idsOf(member, [{ operator: "sender", operand: member.email }]), [ids.link, ids.dmToOwner, ids.mention]);
    assert.deepEqual(await idsOf(member, [{ operator: "sender", operand: member.id }, { operator: "channel", operand: "general" }]), [ids.link, ids.mention]);
    assert.deepEqual(await idsOf(member, [{ operator: "sender", operand: owner.id, negated: true }, { operator: "channel", operand: "general" }]), [ids.link, ids.resolved, ids.mention]);
    assert.deepEqual(await idsOf(member, [{ operator: "id", operand: ids.hello }]), [ids.hello]);
    assert.deepEqual(await idsOf(member, [{ operator: "id", operand: String(ids.others) }]), []);
    assert.deepEqual(await idsOf(member, [{ operator: "topic", operand: "alpha" }, { operator: "near", operand: "12" }]), [ids.hello, ids.link]);
  });

  test("direct message narrows: dm, pm-with, dm-including, group-pm-with, is:dm", async () => {
    const oneToOne = [ids.dmToMember, ids.dmToOwner];
    assert.deepEqual(await idsOf(member, [{ operator: "dm", operand: [owner.id] }]), oneToOne);
    assert.deepEqual(await idsOf(member, [{ operator: "dm", operand: owner.email }]), oneToOne);
    assert.deepEqual(await idsOf(member, [["pm-with", owner.email]]), oneToOne);
    assert.deepEqual(await idsOf(member, [{ operator: "dm", operand: `${owner.email},${admin.email}` }]), [ids.group]);
    assert.deepEqual(await idsOf(member, [{ operator: "dm", operand: [admin.id, owner.id] }]), [ids.group]);
    assert.deepEqual(await idsOf(member, [{ operator: "dm", operand: [moderator.id] }]), []);
    assert.deepEqual(await idsOf(member, [{ operator: "dm", operand: [] }]), []);
    assert.deepEqual(await idsOf(member, [{ operator: "dm-including", operand: owner.id }]), [ids.dmToMember, ids.dmToOwner, ids.group]);
    assert.deepEqual(await idsOf(member, [{ operator: "dm-including", operand: admin.email }]), [ids.group]);
    assert.deepEqual(await idsOf(member, [{ operator: "dm-including", operand: member.id }]), [ids.dmToMember, ids.dmToOwner, ids.group]);
    assert.deepEqual(await idsOf(member, [{ operator: "group-pm-with", operand: owner.email }]), [ids.group]);
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "dm" }]), [ids.dmToMember, ids.dmToOwner, ids.group]);
    assert.deepEqual(await idsOf(member, [["is", "private"]]), [ids.dmToMember, ids.dmToOwner, ids.group]);
    assert.deepEqual(await idsOf(moderator, [{ operator: "dm", operand: [admin.id] }]), [ids.others]);
  });

  test("is: and has: narrows follow the caller's flags and the message's contents", async () => {
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "resolved" }]), [ids.resolved]);
    assert.deepEqual(await idsOf(member, [{ operator: "has", operand: "link" }]), [ids.link]);
    assert.deepEqual(await idsOf(member, [{ operator: "has", operand: "image" }]), []);
    assert.deepEqual(await idsOf(member, [{ operator: "has", operand: "attachment" }, { operator: "channel", operand: "general" }]), []);
    assert.deepEqual(await idsOf(owner, [{ operator: "is", operand: "mentioned" }]), [ids.mention]);
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "mentioned" }]), []);
    const unread = [ids.hello, ids.resolved, ids.secret, ids.dmToMember, ids.group, ids.after, ...anchors];
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "unread" }]), unread);
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "unread", negated: true }]), [ids.link, ids.dmToOwner, ids.mention]);
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: [ids.hello, ids.group], op: "add", flag: "starred" }));
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "starred" }]), [ids.hello, ids.group]);
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "starred" }, { operator: "is", operand: "dm", negated: true }]), [ids.hello]);
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "alerted" }]), []);
    expectSuccess(await server.api.post(member, `/messages/${ids.hello}/reactions`, { emoji_name: "smile" }));
    assert.deepEqual(await idsOf(member, [{ operator: "has", operand: "reaction" }]), [ids.hello]);
    assert.deepEqual(await idsOf(member, [{ operator: "has", operand: "reaction", negated: true }, { operator: "channel", operand: "general" }]), [ids.link, ids.resolved, ids.mention]);
  });

  test("is:followed follows the caller's followed topics", async () => {
    // Starting a topic follows it by default (beta).
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "followed" }]), [ids.mention]);
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: streamIds.general, topic: "ALPHA", visibility_policy: 3 }));
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "followed" }]), [ids.hello, ids.link, ids.mention]);
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "followed", negated: true }, { operator: "channel", operand: "general" }]), [ids.resolved]);
  });

  test("in:home leaves out muted channels; in:all does not", async () => {
    const subscription_data = (value: boolean) => [{ stream_id: streamIds.anchors, property: "is_muted", value }];
    expectSuccess(await server.api.post(member, "/users/me/subscriptions/properties", { subscription_data: subscription_data(true) }));
    try {
      const home = await idsOf(member, [{ operator: "in", operand: "home" }]);
      assert.ok(!home.some((id) => anchors.includes(id)));
      assert.ok(home.includes(ids.hello));
      assert.deepEqual((await idsOf(member, [{ operator: "in", operand: "all" }])).slice(-5), anchors);
      // A muted channel still reads normally when narrowed to, and first_unread skips it elsewhere.
      assert.deepEqual(await idsOf(member, [{ operator: "channel", operand: "anchors" }]), anchors);
    } finally {
      expectSuccess(await server.api.post(member, "/users/me/subscriptions/properties", { subscription_data: subscription_data(false) }));
    }
  });

  test("shared history: a channel narrow shows public and shared history; protected history stays hidden", async () => {
    const lonely = await fetch(member, { narrow: [{ operator: "channel", operand: "lonely" }] });
    assert.deepEqual((lonely.messages as Array<{ id: number }>).map((m) => m.id), [ids.lonely]);
    assert.deepEqual((lonely.messages as Array<{ flags: string[] }>)[0].flags, ["read", "historical"]);
    assert.deepEqual(await idsOf(member, [{ operator: "channel", operand: "protected" }]), [ids.after]);
    assert.deepEqual(await idsOf(owner, [{ operator: "channel", operand: "protected" }]), [ids.before, ids.after]);
    // An is: term turns history off, as upstream.
    assert.deepEqual(await idsOf(member, [{ operator: "channel", operand: "lonely" }, { operator: "is", operand: "unread", negated: true }]), []);
    assert.deepEqual(await idsOf(member, [{ operator: "channel", operand: "lonely" }, { operator: "is", operand: "resolved", negated: true }]), [ids.lonely]);
    // Guests see no public history they were not subscribed for; private channels need access.
    assert.deepEqual(await idsOf(guest, [{ operator: "channel", operand: "lonely" }]), []);
    assert.deepEqual(await idsOf(guest, [{ operator: "channel", operand: "secret" }]), []);
    assert.deepEqual(await idsOf(moderator, [{ operator: "channel", operand: "secret" }]), []);
    const pub = await idsOf(member, [{ operator: "channels", operand: "public" }]);
    assert.ok(pub.includes(ids.lonely) && pub.includes(ids.hello) && !pub.includes(ids.secret) && !pub.includes(ids.dmToOwner));
    assert.deepEqual(await idsOf(member, [{ operator: "streams", operand: "web-public" }]), []);
    assert.ok(!(await idsOf(guest, [{ operator: "channels", operand: "public" }])).includes(ids.lonely));
    // A later subscriber to a private channel with shared history reads what came before.
    await subscribe(owner, "secret", [moderator.id]);
    assert.deepEqual(await idsOf(moderator, [{ operator: "channel", operand: "secret" }]), [ids.secret]);
    assert.ok(!(await idsOf(moderator, [])).includes(ids.secret));
  });

  test("with: the conversation of a message the caller may read", async () => {
    assert.deepEqual(await idsOf(member, [{ operator: "with", operand: ids.hello }]), [ids.hello, ids.link]);
    assert.deepEqual(await idsOf(member, [{ operator: "channel", operand: "secret" }, { operator: "with", operand: String(ids.link) }]), [ids.hello, ids.link]);
    assert.deepEqual(await idsOf(member, [{ operator: "with", operand: ids.group }, { operator: "has", operand: "link", negated: true }]), [ids.group]);
    assert.deepEqual(await idsOf(member, [{ operator: "with", operand: ids.dmToOwner }]), [ids.dmToMember, ids.dmToOwner]);
    // An unreadable message keeps a narrow that already names a conversation, and is refused otherwise.
    assert.deepEqual(await idsOf(member, [{ operator: "dm", operand: [owner.id] }, { operator: "with", operand: ids.others }]), [ids.dmToMember, ids.dmToOwner]);
    const get = (narrow: unknown) => server.api.get(member, "/messages", { anchor: "newest", num_before: 1, narrow });
    badNarrow(await get([{ operator: "with", operand: ids.others }]), "Invalid 'with' operator");
    badNarrow(await get([{ operator: "with", operand: "abc" }]), "Invalid 'with' operator");
    const dup = await get([{ operator: "with", operand: ids.hello }, { operator: "with", operand: ids.link }]);
    expectError(dup, "BAD_NARROW", "Invalid narrow operator combination: Duplicate 'with' operators.");
  });

  test("nobody sees direct messages between others, whatever the narrow", async () => {
    for (const narrow of [[], [{ operator: "sender", operand: admin.id }], [{ operator: "id", operand: ids.others }], [{ operator: "dm-including", operand: moderator.id }]]) {
      assert.ok(!(await idsOf(member, narrow)).includes(ids.others));
      assert.ok(!(await idsOf(owner, narrow)).includes(ids.others));
    }
  });

  test("bad narrows: Zulip's errors for unknown operators, operands and combinations", async () => {
    const get = (narrow: unknown) => server.api.get(member, "/messages", { anchor: "newest", num_before: 1, narrow });
    badNarrow(await get([{ operator: "bogus", operand: "x" }]), "unknown operator bogus");
    badNarrow(await get([{ operator: "channel", operand: "nope" }]), "unknown channel nope");
    badNarrow(await get([{ operator: "channel", operand: 99999 }]), "unknown channel 99999");
    badNarrow(await get([{ operator: "sender", operand: "nobody@example.com" }]), "unknown user nobody@example.com");
    badNarrow(await get([{ operator: "dm", operand: [owner.id, 99999] }]), `unknown user in [${owner.id}, 99999]`);
    badNarrow(await get([{ operator: "dm-including", operand: 99999 }]), "unknown user 99999");
    badNarrow(await get([{ operator: "is", operand: "fancy" }]), "unknown 'is' operand fancy");
    badNarrow(await get([{ operator: "has", operand: "poll" }]), "unknown 'has' operand poll");
    badNarrow(await get([{ operator: "channels", operand: "all-of-them" }]), "unknown channels operand all-of-them");
    badNarrow(await get([{ operator: "in", operand: "space" }]), "unknown 'in' operand space");
    badNarrow(await get([{ operator: "id", operand: "12a" }]), "Invalid message ID");
    badNarrow(await get([{ operator: "channel", operand: "general" }, { operator: "dm", operand: [owner.id] }]), "No message can be both a channel message and direct message");
    badNarrow(await get([{ operator: "is", operand: "dm" }, { operator: "topic", operand: "x" }]), "No message can be both a channel message and direct message");
    assert.deepEqual(await idsOf(member, [{ operator: "is", operand: "dm" }, { operator: "topic", operand: "x", negated: true }]), [ids.dmToMember, ids.dmToOwner, ids.group]);
    expectError(await get([{ operator: "search", operand: "" }]), "BAD_REQUEST", "operand cannot be blank.");
    expectError(await get(["asadasd"]), "BAD_REQUEST", "Invalid narrow[0]: Value error, dict or list required");
    expectError(await get([["stream"]]), "BAD_REQUEST", "Invalid narrow[0]: Value error, element is not a string pair");
    expectError(await get([{ operator: "dm", operand: 5 }]), "BAD_REQUEST", "operand is not a string or an integer list");
    expectError(await get({ operator: "is" }), "BAD_REQUEST", "narrow is not a list");
    expectError(await get("[oops"), "BAD_REQUEST", "narrow is not valid JSON");
  });
});

describeEachStore("GET /messages/{message_id}", (server) => {
  let owner: TestUser, admin: TestUser, moderator: TestUser, member: TestUser, guest: TestUser;
  const ids: Record<string, number> = {};

  before(async () => {
    ({ owner, admin, moderator, member, guest } = server.fixtures);
    const sub = (name: string, principals: number[], extra: Record<string, unknown> = {}) =>
      server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name }], principals, ...extra });
    expectSuccess(await sub("general", [owner.id, member.id]));
    expectSuccess(await sub("hidden", [owner.id], { invite_only: true }));
    const send = async (to: string, content: string) =>
      expectSuccess(await server.api.post(owner, "/messages", { type: "stream", to, topic: "t", content, read_by_sender: true })).id as number;
    ids.general = await send("general", "**hi** there");
    ids.hidden = await send("hidden", "private");
    ids.dm = expectSuccess(await server.api.post(admin, "/messages", { type: "direct", to: [moderator.id], content: "psst" })).id as number;
  });

  test("returns the message with flags and raw_content; apply_markdown=false gives Markdown", async () => {
    let body = expectSuccess(await server.api.get(member, `/messages/${ids.general}`));
    assert.equal(body.raw_content, "**hi** there");
    assert.equal(body.message.id, ids.general);
    assert.equal(body.message.content, "<p><strong>hi</strong> there</p>");
    assert.equal(body.message.content_type, "text/html");
    assert.deepEqual(body.message.flags, []);
    body = expectSuccess(await server.api.get(member, `/messages/${ids.general}`, { apply_markdown: false }));
    assert.equal(body.message.content, "**hi** there");
    assert.equal(body.message.content_type, "text/x-markdown");
    body = expectSuccess(await server.api.get(owner, `/messages/${ids.general}`));
    assert.deepEqual(body.message.flags, ["read"]);
  });

  test("public history is readable by non-guests who did not receive it, as historical", async () => {
    const body = expectSuccess(await server.api.get(admin, `/messages/${ids.general}`));
    assert.deepEqual(body.message.flags, ["read", "historical"]);
  });

  test("Invalid message(s) for missing and inaccessible messages, and 401 without credentials", async () => {
    for (const [user, id] of [[guest, ids.general], [member, ids.hidden], [admin, ids.hidden], [member, ids.dm], [owner, ids.dm], [member, 999999]] as const) {
      expectError(await server.api.get(user, `/messages/${id}`), "BAD_REQUEST", "Invalid message(s)");
    }
    expectSuccess(await server.api.get(moderator, `/messages/${ids.dm}`));
    expectError(await server.api.get(member, "/messages/abc"), "BAD_REQUEST", "message_id is not an integer");
    expectError(await server.api.get(null, `/messages/${ids.general}`), "UNAUTHORIZED", NO_AUTH, 401);
  });
});
