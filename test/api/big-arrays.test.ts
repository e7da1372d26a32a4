/**
 * Lists of ids of any length (issue 11, item 3): every list parameter given 100,000 ids answers
 * 200 or Zulip's 4xx, never a 5xx, in bounded time (SQLite binds at most 32,766 values per
 * statement and PostgreSQL 65,535; the store runs long lists in chunks, store/engine/chunks.ts). A
 * realistic list of 1,500 ids does the whole job: flags on every listed message, a group of 1,500
 * members, 1,500 subscribers, a direct message to 1,500 users.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { doCreateUser } from "../../src/actions/users/create.ts";
import { systemClock } from "../../src/clock.ts";
import { getRealm } from "../../src/store/realm/realms.ts";
import { ROLE } from "../../src/model/roles.ts";
import { insertMessage, streamRecipientId } from "../../src/store/messages/messages.ts";
import { expectSuccess, type ApiResponse } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import type { TestServer } from "../helpers/server.ts";
import { describeEachStore } from "../helpers/suite.ts";

const HUGE = 100_000;
const REALISTIC = 1_500;
/** A whole request of 100,000 ids, parsing included, on a busy test machine. */
const LIMIT_MS = 5_000;
/** A request that does the work for 1,500 real ids. */
const REALISTIC_LIMIT_MS = 15_000;

const huge = Array.from({ length: HUGE }, (_, i) => i + 1);

/** Runs a request; asserts Zulip's envelope, no 5xx and the time limit. */
async function bounded(what: string, call: () => Promise<ApiResponse>, limitMs = LIMIT_MS): Promise<ApiResponse> {
  const started = performance.now();
  const res = await call();
  const ms = performance.now() - started;
  assert.ok(res.status < 500, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
  assert.ok(res.body.result === "success" || res.body.result === "error", `${what}: outside the envelope`);
  assert.ok(ms < limitMs, `${what}: ${Math.round(ms)} ms`);
  return res;
}

describeEachStore("lists of 100,000 ids", { env: { RATE_LIMITS: "off" } }, (server) => {
  let f: TestServer["fixtures"];
  let crowd: number[];
  let streamId: number;
  let groupId: number;
  /** Messages of channel "crowd" the member received, ascending. */
  let messageIds: number[];

  before(async () => {
    f = server.fixtures;
    crowd = await withDb(server, async (db) => {
      const realm = await getRealm(db, f.realmId);
      if (!realm) throw new Error("no fixture realm");
      return db.transaction().execute(async (tx) => {
        const ids: number[] = [];
        for (let i = 0; i < REALISTIC; i++) {
          const user = await doCreateUser(tx, { realm, clock: systemClock }, { email: `crowd${i}@example.com`, fullName: `Crowd ${i}`, role: ROLE.member });
          ids.push(user.id);
        }
        return ids;
      });
    });
    expectSuccess(await server.api.post(f.owner, "/users/me/subscriptions", { subscriptions: [{ name: "crowd" }], principals: [f.owner.id, f.member.id] }));
    streamId = expectSuccess(await server.api.get(f.owner, "/get_stream_id", { stream: "crowd" })).stream_id;
    groupId = expectSuccess(await server.api.post(f.admin, "/user_groups/create", { name: "small", description: "", members: [f.member.id] })).group_id;
    // The member received these (subscribed before they were written); sending 1,500 through
    // the API would only make the suite slower.
    messageIds = await withDb(server, (db) =>
      db.transaction().execute(async (tx) => {
        const recipientId = await streamRecipientId(tx, f.realmId, streamId);
        const ids: number[] = [];
        for (let i = 0; i < REALISTIC; i++) {
          const { message } = await insertMessage(tx, server.store.kind, {
            realm_id: f.realmId, sender_id: f.owner.id, recipient_id: recipientId, stream_id: streamId, topic: "many", content: `m${i}`,
            rendered_content: `<p>m${i}</p>`, date_sent: Math.floor(Date.now() / 1000), sending_client: "test", last_edit_time: null,
            last_moved_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0, stream_wildcard_mention: 0,
          }, new Map());
          ids.push(message.id);
        }
        return ids;
      }),
    );
  });

  test("POST /messages/flags with 100,000 ids", async () => {
    for (const [op, flag] of [["add", "read"], ["remove", "read"], ["add", "starred"], ["remove", "starred"], ["add", "collapsed"]]) {
      await bounded(`${op} ${flag}`, () => server.api.post(f.member, "/messages/flags", { messages: huge, op, flag }));
    }
  });

  test("a direct message to 100,000 ids", async () => {
    const res = await bounded("dm", () => server.api.post(f.member, "/messages", { type: "direct", to: JSON.stringify(huge), content: "hi" }));
    assert.equal(res.status, 400);
    const self = await bounded("dm to self, repeated", () => server.api.post(f.member, "/messages", { type: "direct", to: JSON.stringify(huge.map(() => f.member.id)), content: "hi" }));
    assert.equal(self.status, 200);
  });

  test("user groups: members, subgroups and setting members, 100,000 each", async () => {
    const calls: Array<[string, () => Promise<ApiResponse>]> = [
      ["create members", () => server.api.post(f.admin, "/user_groups/create", { name: "huge", description: "", members: huge })],
      ["create subgroups", () => server.api.post(f.admin, "/user_groups/create", { name: "huge2", description: "", members: [], subgroups: huge })],
      ["create setting", () => server.api.post(f.admin, "/user_groups/create", { name: "huge3", description: "", members: [], can_mention_group: { direct_members: huge, direct_subgroups: [] } })],
      ["add members", () => server.api.post(f.admin, `/user_groups/${groupId}/members`, { add: huge })],
      ["delete members", () => server.api.post(f.admin, `/user_groups/${groupId}/members`, { delete: huge })],
      ["add subgroups", () => server.api.post(f.admin, `/user_groups/${groupId}/subgroups`, { add: huge })],
      ["delete subgroups", () => server.api.post(f.admin, `/user_groups/${groupId}/subgroups`, { delete: huge })],
    ];
    for (const [what, call] of calls) assert.equal((await bounded(what, call)).status, 400, what);
  });

  test("subscription principals, 100,000 ids or emails", async () => {
    const emails = huge.map((i) => `nobody${i}@example.com`);
    const calls: Array<[string, () => Promise<ApiResponse>]> = [
      ["subscribe ids", () => server.api.post(f.owner, "/users/me/subscriptions", { subscriptions: [{ name: "crowd" }], principals: huge })],
      ["subscribe emails", () => server.api.post(f.owner, "/users/me/subscriptions", { subscriptions: [{ name: "crowd" }], principals: emails })],
      ["unsubscribe ids", () => server.api.delete(f.owner, "/users/me/subscriptions", { subscriptions: ["crowd"], principals: huge })],
      ["unsubscribe names", () => server.api.delete(f.owner, "/users/me/subscriptions", { subscriptions: huge.map((i) => `c${i}`) })],
    ];
    for (const [what, call] of calls) assert.equal((await bounded(what, call)).status, 400, what);
  });

  test("other id lists: profile field order and data, linkifier order", async () => {
    await bounded("profile field order", () => server.api.patch(f.admin, "/realm/profile_fields", { order: huge }));
    await bounded("profile data", () => server.api.delete(f.member, "/users/me/profile_data", { data: huge }));
    await bounded("linkifier order", () => server.api.patch(f.admin, "/realm/linkifiers", { ordered_linkifier_ids: huge }));
  });

  test("1,500 messages: flags on every one, read back through a narrow and by id", async () => {
    const starred = async () =>
      expectSuccess(await server.api.get(f.member, "/messages", { anchor: "newest", num_before: 2000, num_after: 0, narrow: JSON.stringify([{ operator: "is", operand: "starred" }]) }))
        .messages.map((m: { id: number }) => m.id);
    await bounded("star 1,500", () => server.api.post(f.member, "/messages/flags", { messages: messageIds, op: "add", flag: "starred" }), REALISTIC_LIMIT_MS);
    assert.deepEqual(await starred(), messageIds);
    const byId = expectSuccess(await bounded("fetch 1,500 by id", () => server.api.get(f.member, "/messages", { message_ids: JSON.stringify(messageIds) }), REALISTIC_LIMIT_MS));
    assert.equal(byId.messages.length, REALISTIC);
    assert.ok(byId.messages.every((m: { flags: string[] }) => m.flags.includes("starred")));
    await bounded("unstar 1,500", () => server.api.post(f.member, "/messages/flags", { messages: messageIds, op: "remove", flag: "starred" }), REALISTIC_LIMIT_MS);
    assert.deepEqual(await starred(), []);
  });

  test("a group of 1,500 members, added and removed", async () => {
    const res = await bounded("create", () => server.api.post(f.admin, "/user_groups/create", { name: "crowd", description: "", members: crowd }), REALISTIC_LIMIT_MS);
    const id = expectSuccess(res).group_id;
    assert.deepEqual(expectSuccess(await server.api.get(f.admin, `/user_groups/${id}/members`)).members, crowd);
    expectSuccess(await bounded("delete", () => server.api.post(f.admin, `/user_groups/${id}/members`, { delete: crowd }), REALISTIC_LIMIT_MS));
    assert.deepEqual(expectSuccess(await server.api.get(f.admin, `/user_groups/${id}/members`)).members, []);
    expectSuccess(await bounded("add", () => server.api.post(f.admin, `/user_groups/${id}/members`, { add: crowd }), REALISTIC_LIMIT_MS));
    assert.deepEqual(expectSuccess(await server.api.get(f.admin, `/user_groups/${id}/members`)).members, crowd);
  });

  test("1,500 principals subscribed and unsubscribed", async () => {
    const members = async () => new Set<number>(expectSuccess(await server.api.get(f.owner, `/streams/${streamId}/members`)).subscribers);
    const res = expectSuccess(await bounded("subscribe", () => server.api.post(f.owner, "/users/me/subscriptions", { subscriptions: [{ name: "crowd" }], principals: crowd }), REALISTIC_LIMIT_MS));
    assert.equal(Object.keys(res.subscribed).length, REALISTIC);
    const after = await members();
    assert.ok(crowd.every((id) => after.has(id)));
    // Not timed: unsubscribing still writes one user at a time (about 4 statements each).
    const gone = expectSuccess(await server.api.delete(f.owner, "/users/me/subscriptions", { subscriptions: ["crowd"], principals: crowd }));
    assert.equal(gone.removed.length, REALISTIC);
    const left = await members();
    assert.ok(crowd.every((id) => !left.has(id)));
  });

  test("a direct message to 1,500 users, twice in one conversation", async () => {
    const send = () => server.api.post(f.member, "/messages", { type: "direct", to: JSON.stringify(crowd), content: "to everyone" });
    const first = expectSuccess(await bounded("first", send, REALISTIC_LIMIT_MS)).id;
    const second = expectSuccess(await bounded("second", send, REALISTIC_LIMIT_MS)).id;
    const recipients = await withDb(server, (db) => db.selectFrom("messages").select("recipient_id").where("id", "in", [first, second]).execute());
    assert.equal(new Set(recipients.map((r) => r.recipient_id)).size, 1);
    const fetched = expectSuccess(await server.api.get(f.member, `/messages/${second}`)).message;
    assert.equal(fetched.display_recipient.length, REALISTIC + 1);
  });
});
