/** POST /messages/{id}/report: report types, description rules, the moderation channel and its notification. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { countRows, setRealmSettings, withDb } from "../helpers/db.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("POST /messages/{id}/report", (server) => {
  let moderationId: number;
  const report = (user: Credentials | null, id: number, params: Record<string, unknown>) => server.api.post(user, `/messages/${id}/report`, params);
  const latest = () => withDb(server, (db) => db.selectFrom("messages").selectAll().where("stream_id", "=", moderationId).orderBy("id", "desc").executeTakeFirst());

  async function refused(user: Credentials | null, id: number, params: Record<string, unknown>, code: string, msg: string, status = 400) {
    const before = await countRows(server, ["messages", "users"]);
    expectError(await report(user, id, params), code, msg, status);
    assert.deepEqual(await countRows(server, ["messages", "users"]), before);
  }

  before(async () => {
    const { owner, member, moderator } = server.fixtures;
    for (const name of ["general", "moderation"]) {
      expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name }], principals: [owner.id, member.id, moderator.id] }));
    }
    moderationId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "moderation" })).stream_id;
  });

  test("without a moderation request channel reporting is refused", async () => {
    const { member, owner } = server.fixtures;
    const id = expectSuccess(await server.api.post(owner, "/messages", { type: "stream", to: "general", topic: "t", content: "rude" })).id;
    await refused(member, id, { report_type: "spam" }, "BAD_REQUEST", "Message reporting is not enabled in this organization.");
  });

  test("a report posts the notification as the Notification Bot", async () => {
    const { member, owner } = server.fixtures;
    await setRealmSettings(server, { moderation_request_channel_id: moderationId });
    const id = expectSuccess(await server.api.post(owner, "/messages", { type: "stream", to: "general", topic: "heated", content: "you are all wrong" })).id;
    expectSuccess(await report(member, id, { report_type: "harassment", description: "Not okay." }));
    const note = await latest();
    assert.ok(note);
    assert.equal(note.topic, "Olivia Owner moderation");
    assert.ok(note.content.startsWith(`@_**Max Member|${member.id}** reported a message sent by @_**Olivia Owner|${owner.id}** at <time:`));
    assert.ok(note.content.includes("```quote\n**Harassment**. Not okay.\n```"));
    assert.ok(note.content.includes(`\`\`\`\` spoiler Original message at #**general>heated@${id}**\nyou are all wrong\n\`\`\`\``) || note.content.includes(`\`\`\` spoiler Original message at #**general>heated@${id}**\nyou are all wrong\n\`\`\``));
    const bot = await withDb(server, (db) => db.selectFrom("users").selectAll().where("id", "=", note.sender_id).executeTakeFirstOrThrow());
    assert.equal(bot.full_name, "Notification Bot");
    assert.equal(bot.is_bot, 1);
    // A second report reuses the bot.
    expectSuccess(await report(member, id, { report_type: "spam" }));
    assert.equal((await latest())?.sender_id, bot.id);
  });

  test("description rules and report types", async () => {
    const { member, owner } = server.fixtures;
    await setRealmSettings(server, { moderation_request_channel_id: moderationId });
    const id = expectSuccess(await server.api.post(owner, "/messages", { type: "stream", to: "general", topic: "t", content: "x" })).id;
    await refused(member, id, { report_type: "other" }, "BAD_REQUEST", "An explanation is required.");
    await refused(member, id, { report_type: "other", description: "" }, "BAD_REQUEST", "An explanation is required.");
    await refused(member, id, { report_type: "rude" }, "BAD_REQUEST", "Invalid report_type");
    await refused(member, id, {}, "REQUEST_VARIABLE_MISSING", "Missing 'report_type' argument");
    await refused(member, id, { report_type: "norms", description: "d".repeat(1001) }, "BAD_REQUEST", "description is too long (limit: 1000 characters)");
    for (const type of ["spam", "harassment", "inappropriate", "norms"]) expectSuccess(await report(member, id, { report_type: type }));
    expectSuccess(await report(member, id, { report_type: "other", description: "d".repeat(1000) }));
    assert.ok((await latest())?.content.includes("**Other reason**. "));
  });

  test("unknown or invisible messages, and no credentials", async () => {
    const { member, owner, moderator } = server.fixtures;
    await setRealmSettings(server, { moderation_request_channel_id: moderationId });
    await refused(member, 999999, { report_type: "spam" }, "BAD_REQUEST", "Invalid message(s)");
    const dm = expectSuccess(await server.api.post(member, "/messages", { type: "direct", to: JSON.stringify([owner.id]), content: "psst" })).id;
    await refused(moderator, dm, { report_type: "spam" }, "BAD_REQUEST", "Invalid message(s)");
    await refused(null, dm, { report_type: "spam" }, "UNAUTHORIZED", NO_AUTH, 401);
    expectSuccess(await report(owner, dm, { report_type: "spam" }));
    assert.ok((await latest())?.content.includes(`reported a message sent by @_**Max Member|${member.id}** at`));
  });
});
