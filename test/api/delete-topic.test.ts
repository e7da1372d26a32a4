/** POST /streams/{stream_id}/delete_topic: administrators delete a topic's messages in batches. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NOT_ADMIN } from "../helpers/errors.ts";
import { sendStreamMessage } from "../helpers/factories.ts";

describeEachStore("delete topic", (server) => {
  let streamId: number;
  before(async () => {
    const { admin, member } = server.fixtures;
    expectSuccess(await server.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "garden" }], principals: [admin.email, member.email] }));
    streamId = expectSuccess(await server.api.get(admin, "/get_stream_id", { stream: "garden" })).stream_id;
  });

  const topics = async (user: Credentials) =>
    (expectSuccess(await server.api.get(user, `/users/me/${streamId}/topics`)).topics as Array<{ name: string }>).map((t) => t.name).sort();

  test("deletes every message of the topic (any case), with delete_message events; other topics stay", async () => {
    const { admin, member } = server.fixtures;
    const a = await sendStreamMessage(server, member, "garden", "weeds", "one");
    const b = await sendStreamMessage(server, admin, "garden", "Weeds", "two");
    await sendStreamMessage(server, member, "garden", "roses", "three");
    const queue = await registerQueue(server.api, member, { event_types: ["delete_message"], client_capabilities: { notification_settings_null: false, bulk_message_deletion: true } });
    const res = expectSuccess(await server.api.post(admin, `/streams/${streamId}/delete_topic`, { topic_name: "weeds" }));
    assert.equal(res.complete, true);
    const events = withoutIds(await pollEvents(server.api, queue));
    assert.equal(events.length, 1);
    assert.deepEqual({ ...events[0], message_ids: [...(events[0].message_ids as number[])].sort((x, y) => x - y) }, {
      type: "delete_message", message_type: "stream", message_ids: [a, b], stream_id: streamId, topic: "Weeds",
    });
    assert.deepEqual(await topics(member), ["roses"]);
    // A topic with nothing in it is done at once.
    assert.equal(expectSuccess(await server.api.post(admin, `/streams/${streamId}/delete_topic`, { topic_name: "nothing" })).complete, true);
  });

  test("refusals: non-admins, unknown channel, missing topic_name; nothing deleted", async () => {
    const { admin, moderator, member, guest } = server.fixtures;
    await sendStreamMessage(server, member, "garden", "keep", "stays");
    for (const who of [moderator, member, guest]) {
      expectError(await server.api.post(who, `/streams/${streamId}/delete_topic`, { topic_name: "keep" }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    }
    expectError(await server.api.post(admin, "/streams/99999/delete_topic", { topic_name: "keep" }), "BAD_REQUEST", "Invalid channel ID");
    expectError(await server.api.post(admin, `/streams/${streamId}/delete_topic`, {}), "REQUEST_VARIABLE_MISSING", "Missing 'topic_name' argument");
    assert.ok((await topics(member)).includes("keep"));
  });
});
