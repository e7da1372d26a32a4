/**
 * The attachment lifecycle through messages: claimed on send (claimAttachments), released when
 * the last linking message is deleted (releaseAttachmentsForDeletedMessages). Needs the send and
 * delete actions to call src/actions/attachments/claim.ts.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectSuccess } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { fetchRaw, uploadFile } from "./uploads-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { sendStreamMessage } from "../helpers/factories.ts";

describeEachStore("attachment claiming", (server) => {
  before(async () => {
    const { owner, member, moderator } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id, moderator.id] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true, principals: [owner.id, member.id] }));
  });

  type User = TestServer["fixtures"]["member"];
  const mine = async (user: User, id: number) => expectSuccess(await server.api.get(user, "/attachments")).attachments.find((a: { id: number }) => a.id === id);
  const upload = async (user: User, name: string) => {
    const body = expectSuccess(await uploadFile(server, user, name, "data"));
    const list = expectSuccess(await server.api.get(user, "/attachments")).attachments;
    return { url: body.url as string, id: list[list.length - 1].id as number };
  };

  test("sending a link claims the sender's upload: listed with the message, an update event, readable by recipients", async () => {
    const { member, moderator } = server.fixtures;
    const up = await upload(member, "claimed.txt");
    const queue = await registerQueue(server.api, member, { event_types: ["attachment"] });
    const messageId = await sendStreamMessage(server, member, "general", "files", `[claimed.txt](${up.url})`);
    const row = await mine(member, up.id);
    assert.deepEqual(row.messages.map((m: { id: number }) => m.id), [messageId]);
    const events = withoutIds(await pollEvents(server.api, queue));
    assert.deepEqual(events.map((e) => [e.type, e.op, (e.attachment as { messages: unknown[] }).messages.length]), [["attachment", "update", 1]]);
    assert.equal((await fetchRaw(server, moderator, up.url)).status, 200);
  });

  test("a user cannot share an upload they cannot see; one who can see it may re-share it", async () => {
    const { member, moderator, owner } = server.fixtures;
    const up = await upload(member, "secret.txt");
    const secretId = await sendStreamMessage(server, member, "secret", "files", `[secret.txt](${up.url})`);
    await sendStreamMessage(server, moderator, "general", "files", `stolen: [secret.txt](${up.url})`);
    assert.deepEqual((await mine(member, up.id)).messages.map((m: { id: number }) => m.id), [secretId]);
    assert.equal((await fetchRaw(server, moderator, up.url)).status, 403);
    const reshared = await sendStreamMessage(server, owner, "general", "files", `[secret.txt](${up.url})`);
    assert.deepEqual((await mine(member, up.id)).messages.map((m: { id: number }) => m.id), [secretId, reshared]);
    assert.equal((await fetchRaw(server, moderator, up.url)).status, 200);
  });

  test("deleting the last linking message deletes the upload", async () => {
    const { member, owner } = server.fixtures;
    const up = await upload(member, "short.txt");
    const first = await sendStreamMessage(server, member, "general", "files", `[short.txt](${up.url})`);
    const second = await sendStreamMessage(server, member, "general", "files", `again [short.txt](${up.url})`);
    expectSuccess(await server.api.delete(owner, `/messages/${first}`));
    assert.deepEqual((await mine(member, up.id)).messages.map((m: { id: number }) => m.id), [second]);
    expectSuccess(await server.api.delete(owner, `/messages/${second}`));
    assert.equal(await mine(member, up.id), undefined);
    assert.equal((await fetchRaw(server, member, up.url)).status, 404);
  });
});
