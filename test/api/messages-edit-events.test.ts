/** update_message events of content edits and moves, each user's flags, and delete_message to users a move shuts out. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { sendStreamMessage } from "../helpers/factories.ts";

const CAPABILITIES = JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true, empty_topic_name: true });

describeEachStore("update_message events", (server) => {
  let generalId: number;
  let secretId: number;
  const queue = (user: Credentials) => registerQueue(server.api, user, { event_types: JSON.stringify(["update_message", "delete_message"]), client_capabilities: CAPABILITIES });

  before(async () => {
    const { owner, member, moderator } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id, moderator.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }], principals: [owner.id, member.id], invite_only: true }));
    generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
    secretId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "secret" })).stream_id;
  });

  test("a content edit: one event per user with that user's flags", async () => {
    const { member, moderator, owner } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "events", "before");
    const [forModerator, forOwner] = [await queue(moderator), await queue(owner)];
    await server.advanceClock(7);
    expectSuccess(await server.api.patch(member, `/messages/${id}`, { content: "after @**Mona Moderator**" }));
    const [event] = withoutIds(await pollEvents(server.api, forModerator));
    const mention = `<p>after <span class="user-mention" data-user-id="${moderator.id}">@Mona Moderator</span></p>`;
    assert.deepEqual(event, {
      type: "update_message",
      user_id: member.id,
      edit_timestamp: event.edit_timestamp,
      message_id: id,
      message_ids: [id],
      rendering_only: false,
      stream_name: "general",
      stream_id: generalId,
      orig_content: "before",
      orig_rendered_content: "<p>before</p>",
      content: `after @**Mona Moderator**`,
      rendered_content: mention,
      is_me_message: false,
      flags: ["mentioned"],
    });
    const [ownerEvent] = withoutIds(await pollEvents(server.api, forOwner));
    assert.deepEqual(ownerEvent.flags, []);
  });

  test("a topic move with change_all lists every moved message", async () => {
    const { member, owner } = server.fixtures;
    const ids = [await sendStreamMessage(server, member, "general", "old name", "a"), await sendStreamMessage(server, member, "general", "old name", "b")];
    const q = await queue(owner);
    expectSuccess(await server.api.patch(member, `/messages/${ids[1]}`, { topic: "new name", propagate_mode: "change_all" }));
    const [event] = withoutIds(await pollEvents(server.api, q));
    assert.deepEqual(event, {
      type: "update_message",
      user_id: member.id,
      edit_timestamp: event.edit_timestamp,
      message_id: ids[1],
      message_ids: ids,
      rendering_only: false,
      stream_name: "general",
      stream_id: generalId,
      propagate_mode: "change_all",
      orig_subject: "old name",
      subject: "new name",
      topic_links: [],
      flags: [],
    });
  });

  test("a move into a private channel: update for those who keep it, delete_message for the others", async () => {
    const { member, owner, moderator } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "leaving", "x");
    const [keeps, loses] = [await queue(owner), await queue(moderator)];
    expectSuccess(await server.api.patch(member, `/messages/${id}`, { stream_id: secretId }));
    const [update] = withoutIds(await pollEvents(server.api, keeps));
    assert.equal(update.type, "update_message");
    assert.equal(update.new_stream_id, secretId);
    assert.equal(update.orig_subject, "leaving");
    assert.equal(update.subject, undefined);
    assert.deepEqual(withoutIds(await pollEvents(server.api, loses)), [{ type: "delete_message", message_ids: [id], message_type: "stream", stream_id: generalId, topic: "leaving" }]);
  });
});
