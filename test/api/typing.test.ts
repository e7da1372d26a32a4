/**
 * Typing notifications: POST /typing (direct conversations and channel topics) and POST
 * /messages/{message_id}/typing (FL 351), their `typing` / `typing_edit_message` events (who
 * receives them: receives_typing_notifications, active users, channel subscribers, the
 * stream_typing_notifications and empty_topic_name capabilities) and upstream's errors.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { before, test } from "node:test";
import { Ajv, type ValidateFunction } from "ajv";
import YAML from "yaml";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { groupId, setRealmSettings, setUserSettings, withDb } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds, type Queue } from "../helpers/events.ts";
import { createUser, sendMessage } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const FL372_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/zulip-openapi-fl372.yaml");

/**
 * The FL 372 description's `typing_edit_message` event schemas: the event (FL 351) is newer than
 * the OpenAPI copy the test client checks events against, so it is checked here.
 */
let editEventSchema: ValidateFunction | null = null;
function assertEditEvent(event: unknown): void {
  if (!editEventSchema) {
    type Node = { properties?: Record<string, Node>; allOf?: Node[]; oneOf?: Node[]; items?: Node; enum?: unknown[] };
    const doc = YAML.parse(fs.readFileSync(FL372_FILE, "utf8"), { maxAliasCount: -1 }) as { paths: Record<string, Record<string, Record<string, unknown>>>; components: unknown };
    const response = JSON.stringify(doc.paths["/events"].get.responses).replaceAll('"#/components/', '"fl372#/components/');
    const schema = (JSON.parse(response) as Record<string, { content: Record<string, { schema: Node }> }>)["200"].content["application/json"].schema;
    const eventsNode = schema.allOf?.find((n) => n.properties?.events)?.properties?.events ?? schema.properties?.events;
    const branches = (eventsNode?.items?.oneOf ?? []).filter((b) => JSON.stringify(b.properties?.type ?? {}).includes('"typing_edit_message"'));
    assert.equal(branches.length, 2, "the FL 372 copy documents typing_edit_message start and stop");
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ components: doc.components }, "fl372");
    editEventSchema = ajv.compile({ anyOf: branches });
  }
  assert.ok(editEventSchema(event), `typing_edit_message event does not match the FL 372 schema: ${JSON.stringify(editEventSchema.errors)}`);
}

describeEachStore("typing", (server) => {
  let plazaId: number;
  let vaultId: number;
  const typing = (user: Credentials | null, params: Record<string, unknown>) => server.api.post(user, "/typing", params);
  const editTyping = (user: Credentials | null, messageId: number, params: Record<string, unknown>) => server.api.post(user, `/messages/${messageId}/typing`, params);
  const streamQueue = (user: Credentials, capabilities: Record<string, boolean> = {}) =>
    registerQueue(server.api, user, { event_types: ["typing"], client_capabilities: { notification_settings_null: false, stream_typing_notifications: true, empty_topic_name: true, ...capabilities } });
  const person = (u: { id: number; email: string }) => ({ user_id: u.id, email: u.email });

  /** typing_edit_message events, polled without the FL 321 check and checked against FL 372. */
  async function pollEdits(queue: Queue): Promise<Array<Record<string, unknown>>> {
    const body = expectSuccess(await server.api.get(queue.user, "/events", { queue_id: queue.queueId, last_event_id: queue.lastEventId, dont_block: true }, { validate: false }));
    const events = body.events as Array<Record<string, unknown> & { id: number }>;
    if (events.length > 0) queue.lastEventId = events[events.length - 1].id;
    const edits = events.filter((e) => e.type !== "heartbeat");
    for (const event of edits) assertEditEvent(event);
    return withoutIds(edits);
  }

  before(async () => {
    const { owner, member, moderator, guest } = server.fixtures;
    const subscribe = async (user: Credentials, name: string, principals: number[], extra: Record<string, unknown> = {}) =>
      expectSuccess(await server.api.post(user, "/users/me/subscriptions", { subscriptions: [{ name }], principals, ...extra }));
    await subscribe(owner, "plaza", [owner.id, member.id, moderator.id, guest.id]);
    await subscribe(member, "vault", [member.id], { invite_only: true });
    const ids = await withDb(server, (db) => db.selectFrom("streams").select(["id", "name"]).where("realm_id", "=", server.fixtures.realmId).execute());
    plazaId = ids.find((s) => s.name === "plaza")?.id ?? 0;
    vaultId = ids.find((s) => s.name === "vault")?.id ?? 0;
  });

  test("direct: start and stop reach the participants (sender included), in the order given", async () => {
    const { member, admin, owner } = server.fixtures;
    const [memberQ, adminQ, ownerQ] = await Promise.all([member, admin, owner].map((u) => registerQueue(server.api, u, { event_types: ["typing"] })));
    assert.deepEqual(expectSuccess(await typing(member, { op: "start", to: [admin.id] })), { result: "success", msg: "" });
    expectSuccess(await typing(member, { type: "direct", op: "stop", to: JSON.stringify([admin.id, member.id]) }));
    const start = { type: "typing", op: "start", message_type: "direct", sender: person(member), recipients: [person(admin), person(member)] };
    const expected = [start, { ...start, op: "stop" }];
    assert.deepEqual(withoutIds(await pollEvents(server.api, memberQ)), expected);
    assert.deepEqual(withoutIds(await pollEvents(server.api, adminQ)), expected);
    assert.deepEqual(await pollEvents(server.api, ownerQ), [], "not a participant");
  });

  test("direct: users who turned off receives_typing_notifications and deactivated users get nothing", async () => {
    const { member, admin } = server.fixtures;
    const gone = await createUser(server, { name: "Gone Soon" });
    expectSuccess(await server.api.delete(server.fixtures.owner, `/users/${gone.id}`));
    await setUserSettings(server, admin.id, { receives_typing_notifications: false });
    try {
      const [memberQ, adminQ] = await Promise.all([member, admin].map((u) => registerQueue(server.api, u, { event_types: ["typing"] })));
      expectSuccess(await typing(member, { op: "start", to: [admin.id, gone.id] }));
      const events = withoutIds(await pollEvents(server.api, memberQ));
      // A deactivated participant is still named, so clients know which conversation it is.
      assert.deepEqual(events, [{ type: "typing", op: "start", message_type: "direct", sender: person(member), recipients: [person(admin), person(gone), person(member)] }]);
      assert.deepEqual(await pollEvents(server.api, adminQ), []);
    } finally {
      await setUserSettings(server, admin.id, { receives_typing_notifications: true });
    }
  });

  test("channel: subscribers with stream_typing_notifications get it; others do not", async () => {
    const { member, owner, moderator, guest, admin } = server.fixtures;
    const [ownerQ, moderatorQ, guestQ, adminQ, memberQ] = await Promise.all([owner, moderator, guest, admin, member].map((u) => streamQueue(u)));
    const legacyQ = await registerQueue(server.api, owner, { event_types: ["typing"] });
    expectSuccess(await typing(member, { type: "stream", op: "start", stream_id: plazaId, topic: "lunch" }));
    expectSuccess(await typing(member, { type: "channel", op: "stop", stream_id: plazaId, topic: "lunch" }));
    const start = { type: "typing", op: "start", message_type: "stream", sender: person(member), stream_id: plazaId, topic: "lunch" };
    for (const q of [ownerQ, moderatorQ, guestQ, memberQ]) assert.deepEqual(withoutIds(await pollEvents(server.api, q)), [start, { ...start, op: "stop" }]);
    assert.deepEqual(await pollEvents(server.api, adminQ), [], "not subscribed");
    assert.deepEqual(await pollEvents(server.api, legacyQ), [], "no stream_typing_notifications capability");
  });

  test("channel: the empty topic (also as its display name or `(no topic)`) per empty_topic_name", async () => {
    const { member, owner, moderator } = server.fixtures;
    const modern = await streamQueue(owner);
    const legacy = await streamQueue(moderator, { empty_topic_name: false });
    for (const topic of ["", "general chat", "(no topic)"]) expectSuccess(await typing(member, { type: "stream", op: "start", stream_id: plazaId, topic }));
    const base = { type: "typing", op: "start", message_type: "stream", sender: person(member), stream_id: plazaId };
    assert.deepEqual(withoutIds(await pollEvents(server.api, modern)), [0, 1, 2].map(() => ({ ...base, topic: "" })));
    assert.deepEqual(withoutIds(await pollEvents(server.api, legacy)), [0, 1, 2].map(() => ({ ...base, topic: "general chat" })));
  });

  test("channel: receives_typing_notifications off, and who may type where", async () => {
    const { member, owner, guest, admin } = server.fixtures;
    await setUserSettings(server, owner.id, { receives_typing_notifications: false });
    try {
      const [ownerQ, guestQ] = await Promise.all([owner, guest].map((u) => streamQueue(u)));
      expectSuccess(await typing(member, { type: "stream", op: "start", stream_id: plazaId, topic: "t" }));
      assert.deepEqual(await pollEvents(server.api, ownerQ), []);
      assert.equal((await pollEvents(server.api, guestQ)).length, 1);
    } finally {
      await setUserSettings(server, owner.id, { receives_typing_notifications: true });
    }
    // A private channel the caller cannot see reads as missing; a channel the caller may not post in is refused.
    expectError(await typing(admin, { type: "stream", op: "start", stream_id: vaultId, topic: "t" }), "BAD_REQUEST", "Invalid channel ID");
    const memberQ = await streamQueue(member);
    expectSuccess(await typing(member, { type: "stream", op: "start", stream_id: vaultId, topic: "t" }));
    assert.equal((await pollEvents(server.api, memberQ)).length, 1);
    const admins = await groupId(server, "role:administrators");
    const everyone = await groupId(server, "role:everyone");
    await withDb(server, (db) => db.updateTable("streams").set({ can_send_message_group_id: admins }).where("id", "=", plazaId).execute());
    try {
      expectError(await typing(member, { type: "stream", op: "start", stream_id: plazaId, topic: "t" }), "BAD_REQUEST", "You do not have permission to post in this channel.");
    } finally {
      await withDb(server, (db) => db.updateTable("streams").set({ can_send_message_group_id: everyone }).where("id", "=", plazaId).execute());
    }
  });

  test("errors: upstream's messages; a sender who turned sending off is refused", async () => {
    const { member, admin } = server.fixtures;
    const queue = await registerQueue(server.api, admin, { event_types: ["typing"] });
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ op: "begin", to: [admin.id] }, "Invalid op"],
      [{ type: "private", op: "start", to: [admin.id] }, "Invalid type"],
      [{ op: "start" }, "Missing 'to' argument"],
      [{ op: "start", to: "null" }, "Missing 'to' argument"],
      [{ op: "start", to: [] }, "Empty 'to' list"],
      [{ op: "start", to: "admin" }, "to is not valid JSON"],
      [{ op: "start", to: [admin.id, 999999] }, "Invalid user ID 999999"],
      [{ op: "start", to: [1.5] }, "to[0] is not an integer"],
      [{ type: "stream", op: "start", stream_id: "99999999999", topic: "t" }, "stream_id is too large"],
      [{ type: "stream", op: "start", stream_id: "[1]", topic: "t" }, "stream_id is not an integer"],
      [{ type: "stream", op: "start", topic: "t" }, "Missing 'stream_id' argument"],
      [{ type: "channel", op: "start", stream_id: plazaId }, "Missing topic"],
      [{ type: "stream", op: "start", stream_id: 999999, topic: "t" }, "Invalid channel ID"],
    ];
    for (const [params, msg] of bad) expectError(await typing(member, params), "BAD_REQUEST", msg);
    expectError(await typing(member, { to: [admin.id] }), "REQUEST_VARIABLE_MISSING", "Missing 'op' argument");
    expectError(await typing(null, { op: "start", to: [admin.id] }), "UNAUTHORIZED", NO_AUTH, 401);
    await setUserSettings(server, member.id, { send_private_typing_notifications: false, send_stream_typing_notifications: false });
    try {
      expectError(await typing(member, { op: "start", to: [admin.id] }), "BAD_REQUEST", "User has disabled typing notifications for direct messages");
      expectError(await typing(member, { type: "stream", op: "start", stream_id: plazaId, topic: "t" }), "BAD_REQUEST", "User has disabled typing notifications for channel messages");
    } finally {
      await setUserSettings(server, member.id, { send_private_typing_notifications: true, send_stream_typing_notifications: true });
    }
    assert.deepEqual(await pollEvents(server.api, queue), [], "a refused request sends nothing");
  });

  test("editing a message: typing_edit_message to a direct conversation's and a channel's recipients", async () => {
    const { member, admin, owner, moderator, guest } = server.fixtures;
    const dm = await sendMessage(server, member, { type: "direct", to: JSON.stringify([admin.id]), content: "draft" });
    const post = await sendMessage(server, member, { type: "stream", to: "plaza", topic: "menu", content: "soup" });
    const queues = await Promise.all([member, admin, owner, moderator].map((u) => registerQueue(server.api, u, { event_types: ["typing_edit_message"] })));
    const [memberQ, adminQ, ownerQ, moderatorQ] = queues;
    expectSuccess(await editTyping(member, dm, { op: "start" }));
    expectSuccess(await editTyping(member, dm, { op: "stop" }));
    const dmStart = { type: "typing_edit_message", op: "start", sender_id: member.id, message_id: dm, recipient: { type: "direct", user_ids: [admin.id, member.id].sort((a, b) => a - b) } };
    for (const q of [memberQ, adminQ]) assert.deepEqual(await pollEdits(q), [dmStart, { ...dmStart, op: "stop" }]);
    assert.deepEqual(await pollEdits(ownerQ), []);
    // Channel messages: every subscriber who receives typing notifications (no capability needed).
    await setUserSettings(server, moderator.id, { receives_typing_notifications: false });
    try {
      const guestQ = await registerQueue(server.api, guest, { event_types: ["typing_edit_message"] });
      expectSuccess(await editTyping(member, post, { op: "start" }));
      const channelStart = { type: "typing_edit_message", op: "start", sender_id: member.id, message_id: post, recipient: { type: "channel", channel_id: plazaId, topic: "menu" } };
      for (const q of [memberQ, ownerQ, guestQ]) assert.deepEqual(await pollEdits(q), [channelStart]);
      assert.deepEqual(await pollEdits(moderatorQ), []);
      assert.deepEqual(await pollEdits(adminQ), [], "not subscribed");
    } finally {
      await setUserSettings(server, moderator.id, { receives_typing_notifications: true });
    }
  });

  test("editing a message: only its sender, while editing is allowed, within the limit without grace", async () => {
    const { member, admin, owner } = server.fixtures;
    const mine = await sendMessage(server, member, { type: "stream", to: "plaza", topic: "menu", content: "tea" });
    const queue = await registerQueue(server.api, owner, { event_types: ["typing_edit_message"] });
    expectError(await editTyping(owner, mine, { op: "start" }), "BAD_REQUEST", "You don't have permission to edit this message");
    expectError(await editTyping(admin, 999999, { op: "start" }), "BAD_REQUEST", "Invalid message(s)");
    expectError(await editTyping(member, mine, {}), "REQUEST_VARIABLE_MISSING", "Missing 'op' argument");
    expectError(await editTyping(member, mine, { op: "begin" }), "BAD_REQUEST", "Invalid op");
    expectError(await editTyping(null, mine, { op: "start" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await editTyping(member, 99999999999, { op: "start" }), "BAD_REQUEST", "message_id is too large");
    await setUserSettings(server, member.id, { send_stream_typing_notifications: false });
    expectError(await editTyping(member, mine, { op: "start" }), "BAD_REQUEST", "User has disabled typing notifications for channel messages");
    await setUserSettings(server, member.id, { send_stream_typing_notifications: true });
    await setRealmSettings(server, { allow_message_editing: false });
    expectError(await editTyping(member, mine, { op: "start" }), "BAD_REQUEST", "Your organization has turned off message editing");
    await setRealmSettings(server, { allow_message_editing: true, message_content_edit_limit_seconds: 60 });
    try {
      // Past the limit but inside PATCH's 20-second grace: the edit would pass, typing does not.
      expectSuccess(await server.api.post(null, "/__test/advance_clock", { seconds: 70 }));
      expectError(await editTyping(member, mine, { op: "start" }), "BAD_REQUEST", "The time limit for editing this message has passed");
    } finally {
      await setRealmSettings(server, { message_content_edit_limit_seconds: 600 });
    }
    assert.deepEqual(await pollEdits(queue), [], "a refused request sends nothing");
  });
});
