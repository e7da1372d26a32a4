/** topic_links of messages: GET /messages, the `message` event and the update_message event of a topic edit, from the realm's linkifiers and bare URLs. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { sendStreamMessage } from "../helpers/factories.ts";

const ISSUES = { pattern: "#(?P<id>[0-9]+)", url_template: "https://github.com/zulip/zulip/issues/{id}" };
const issue = (id: number) => ({ text: `#${id}`, url: `https://github.com/zulip/zulip/issues/${id}` });

describeEachStore("topic_links", (server) => {
  const fetched = async (user: Credentials, id: number) => {
    const body = expectSuccess(await server.api.get(user, "/messages", { anchor: id, num_before: 0, num_after: 0 }));
    assert.equal(body.messages.length, 1);
    return body.messages[0].topic_links;
  };

  before(async () => {
    const { owner, member, admin } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id] }));
    expectSuccess(await server.api.post(admin, "/realm/filters", ISSUES));
  });

  test("the message event and GET /messages carry the topic's linkifier matches and bare URLs, in order", async () => {
    const { owner, member } = server.fixtures;
    const queue = await registerQueue(server.api, member, { event_types: JSON.stringify(["message"]) });
    const id = await sendStreamMessage(server, owner, "general", "fix #123 and #45, see zulip.com/help", "text");
    const expected = [issue(123), issue(45), { text: "zulip.com/help", url: "https://zulip.com/help" }];
    const [event] = await pollEvents(server.api, queue);
    assert.equal(event.type, "message");
    assert.deepEqual((event.message as Record<string, unknown>).topic_links, expected);
    assert.deepEqual(await fetched(member, id), expected);
  });

  test("topics without links, and direct messages, have none", async () => {
    const { owner, member } = server.fixtures;
    assert.deepEqual(await fetched(member, await sendStreamMessage(server, owner, "general", "issue#1 (no boundary) and #2x", "text")), []);
    const dm = expectSuccess(await server.api.post(owner, "/messages", { type: "direct", to: JSON.stringify([member.id]), content: "hi #9" })).id;
    assert.deepEqual(await fetched(member, dm), []);
  });

  test("a topic edit's update_message event carries the new topic's links; fetches follow", async () => {
    const { owner, member } = server.fixtures;
    const id = await sendStreamMessage(server, member, "general", "plain", "text");
    const queue = await registerQueue(server.api, owner, { event_types: JSON.stringify(["update_message"]) });
    expectSuccess(await server.api.patch(member, `/messages/${id}`, { topic: "now #77 https://example.com/x" }));
    const [event] = await pollEvents(server.api, queue);
    const expected = [issue(77), { text: "https://example.com/x", url: "https://example.com/x" }];
    assert.equal(event.type, "update_message");
    assert.equal(event.subject, "now #77 https://example.com/x");
    assert.deepEqual(event.topic_links, expected);
    assert.deepEqual(await fetched(owner, id), expected);
  });

  test("links follow the realm's current linkifiers at fetch time", async () => {
    const { owner, member, admin } = server.fixtures;
    const id = await sendStreamMessage(server, owner, "general", "ticket #5", "text");
    assert.deepEqual(await fetched(member, id), [issue(5)]);
    const linkifiers = expectSuccess(await server.api.get(member, "/realm/linkifiers")).linkifiers as Array<{ id: number }>;
    for (const l of linkifiers) expectSuccess(await server.api.delete(admin, `/realm/filters/${l.id}`));
    try {
      assert.deepEqual(await fetched(member, id), []);
    } finally {
      expectSuccess(await server.api.post(admin, "/realm/filters", ISSUES));
    }
  });
});
