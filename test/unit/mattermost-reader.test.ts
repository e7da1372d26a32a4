/**
 * src/formats/mattermost/read-export.ts on upstream Zulip's Mattermost fixtures
 * (test/fixtures/mattermost/) and on small exports written here: teams, people and roles,
 * channels, threads as topics, direct conversations, reactions, emoji, files, refusals.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { ImportRefusedError } from "../../src/errors.ts";
import type { ForeignMessage } from "../../src/formats/foreign/organization.ts";
import { readMattermostExport } from "../../src/formats/mattermost/read-export.ts";
import { CHANNEL_TOPIC } from "../../src/formats/mattermost/topics.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/mattermost");

async function all(source: string, team?: string): Promise<{ read: Awaited<ReturnType<typeof readMattermostExport>>; messages: ForeignMessage[] }> {
  const read = await readMattermostExport(source, { team });
  const messages: ForeignMessage[] = [];
  for await (const m of read.organization.messages()) messages.push(m);
  return { read, messages };
}

/** An export of these lines (objects) in a new directory; returns the .jsonl path. */
function writeExport(lines: unknown[], raw = ""): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-mm-"));
  const file = path.join(dir, "export.jsonl");
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n" + raw);
  return file;
}

const VERSION = { type: "version", version: 1 };
const TEAM = { type: "team", team: { name: "hogwarts", display_name: "Hogwarts" } };
const user = (username: string, roles = "team_user", system = "system_user", channels = ["town-square"]) => ({
  type: "user",
  user: { username, email: `${username}@example.test`, first_name: username.toUpperCase(), last_name: "", roles: system, teams: [{ name: "hogwarts", roles, channels: channels.map((name) => ({ name, roles: "channel_user" })) }] },
});
const channel = (name: string, type = "O") => ({ type: "channel", channel: { team: "hogwarts", name, display_name: name.replace(/-/g, " "), type, header: "", purpose: "" } });
const post = (user: string, message: string, create_at: number, replies: unknown[] | null = null) => ({
  type: "post", post: { team: "hogwarts", channel: "town-square", user, message, create_at, reactions: null, replies },
});

async function refused(source: string, message: RegExp, team?: string): Promise<void> {
  await assert.rejects(() => readMattermostExport(source, { team }), (err: unknown) => err instanceof ImportRefusedError && message.test(err.message));
}

describe("Mattermost reader on upstream's fixtures", () => {
  test("an export of two teams needs --team, and lists them", async () => {
    await refused(path.join(FIXTURES, "export.json"), /2 teams \(gryffindor, slytherin\): choose one with --team NAME/);
    await refused(FIXTURES, /no team "ravenclaw"; its teams: gryffindor, slytherin/, "ravenclaw");
  });

  test("gryffindor: people, roles, channels, emoji, thread as topic, reactions", async () => {
    const { read, messages } = await all(FIXTURES, "gryffindor");
    const org = read.organization;
    assert.equal(org.name, "Iago Realm");
    assert.equal(org.stringId, "gryffindor");
    assert.deepEqual(org.users.map((u) => [u.key, u.fullName, u.email, u.role, u.isActive]), [
      ["ron", "Ron Weasley", "ron@zulip.com", "member", true],
      ["harry", "Harry Potter", "harry@zulip.com", "owner", true],
    ]);
    assert.deepEqual(org.channels.map((c) => [c.key, c.name, c.isPrivate, c.memberKeys.sort()]), [
      ["gryffindor-common-room", "Gryffindor common room", false, ["harry", "ron"]],
      ["gryffindor-quidditch-team", "Gryffindor quidditch team", false, ["harry", "ron"]],
      ["dumbledores-army", "Dumbledores army", true, ["harry", "ron"]],
    ]);
    assert.equal(org.channels[2].description, "A place for talking about Dumbledores army");
    assert.deepEqual(org.emoji.map((e) => [e.name, fs.existsSync(e.file)]), [["peerdium", true], ["tick", true]]);
    assert.equal(messages.length, 16);
    const thread = messages.filter((m) => "channelKey" in m.to && m.to.channelKey === "dumbledores-army" && m.to.topic !== CHANNEL_TOPIC);
    assert.deepEqual(thread.map((m) => [m.senderKey, m.markdown, m.to]), [
      ["harry", "harry joined the channel.", { channelKey: "dumbledores-army", topic: "harry joined the channel." }],
      ["ron", "The weather is so hot!", { channelKey: "dumbledores-army", topic: "harry joined the channel." }],
    ]);
    assert.ok(messages.some((m) => m.markdown === "@**Ron Weasley|ron** Welcome mate!"));
    const hello = messages.find((m) => m.markdown === "Hello world")!;
    assert.deepEqual(hello.reactions, [{ userKey: "harry", emojiName: "tick" }, { userKey: "ron", emojiName: "big_smile" }, { userKey: "ron", emojiName: "world_map" }]);
    // malfoy (slytherin) reacted to "Awesome!": he does not come across, nor does his reaction.
    assert.deepEqual(messages.find((m) => m.markdown === "Awesome!")!.reactions, []);
    assert.deepEqual(read.notes, ["1 post(s) of team gryffindor in a channel the team does not have were left out"]);
  });

  test("messages stream oldest first, a reply no earlier than its root", async () => {
    const { messages } = await all(FIXTURES, "gryffindor");
    const order = messages.map((m) => (m.key === "14.0" ? messages.find((r) => r.key === "14")!.sent : m.sent));
    assert.deepEqual(order, [...order].sort((a, b) => a - b));
  });

  test("slytherin: team admins are owners when no system admin is a member", async () => {
    const { read } = await all(path.join(FIXTURES, "export.json"), "slytherin");
    assert.deepEqual(read.organization.users.map((u) => [u.key, u.fullName, u.role]), [["malfoy", "malfoy", "owner"], ["pansy", "pansy", "owner"], ["snape", "Severus Snape", "member"]]);
  });

  test("direct_channel: direct and group conversations, a sender on no team, files", async () => {
    const { read, messages } = await all(path.join(FIXTURES, "direct_channel"));
    const voldemort = read.organization.users.find((u) => u.key === "voldemort")!;
    assert.deepEqual([voldemort.isActive, voldemort.role, voldemort.fullName], [false, "member", "Tom Riddle"]);
    const direct = messages.filter((m) => "memberKeys" in m.to);
    assert.deepEqual(direct.map((m) => [m.senderKey, m.to]), [
      ["ron", { memberKeys: ["ron", "harry"] }],
      ["ginny", { memberKeys: ["ron", "harry", "ginny"] }],
      ["ron", { memberKeys: ["ron", "harry", "ginny"] }],
      ["harry", { memberKeys: ["ron", "harry", "ginny"] }],
      ["harry", { memberKeys: ["ron", "harry"] }],
      ["voldemort", { memberKeys: ["harry", "voldemort"] }],
      ["harry", { memberKeys: ["harry", "voldemort"] }],
    ]);
    assert.deepEqual(direct[0].files.map((f) => [f.name, f.contentType, f.ownerKey, fs.existsSync(f.path)]), [["harry-ron.jpg", "image/jpeg", "ron", true]]);
    const missing = messages.find((m) => m.markdown.startsWith("Looks like"))!;
    assert.deepEqual(missing.files, []);
    assert.equal(missing.markdown, "Looks like this channel is empty\n*(this is a file: file not in the export)*");
    assert.deepEqual(read.notes, ["1 attachment(s) named by posts are not under data/ and were left out (each message says which)"]);
  });
});

describe("Mattermost reader on exports written here", () => {
  test("threads get their own topics, unique in the channel; edits, guests, deactivated people, archived channels", async () => {
    const file = writeExport([
      VERSION, TEAM, channel("town-square"), { type: "channel", channel: { ...channel("old-news", "P").channel, deleted_at: 5 } },
      user("albus", "team_admin team_user", "system_admin system_user"), user("minerva"),
      { type: "user", user: { ...user("luna").user, roles: "system_guest", teams: [{ name: "hogwarts", roles: "team_guest", channels: [{ name: "town-square", roles: "channel_guest" }] }] } },
      { type: "user", user: { ...user("quirinus").user, delete_at: 1000 } },
      post("albus", "Exams", 1000, [{ user: "minerva", message: "when?", create_at: 2000, edit_at: 2500 }]),
      post("minerva", "exams", 3000, [{ user: "albus", message: "tomorrow", create_at: 4000 }]),
      post("luna", "no replies here, @albus", 5000),
      { type: "post", post: { ...post("albus", "minerva joined the channel.", 6000).post, type: "system_join_channel" } },
      { type: "scheme", scheme: {} },
    ]);
    const { read, messages } = await all(file);
    const org = read.organization;
    assert.deepEqual(org.users.map((u) => [u.key, u.role, u.isActive]), [["albus", "owner", true], ["minerva", "member", true], ["luna", "guest", true], ["quirinus", "member", false]]);
    assert.deepEqual(org.channels.map((c) => [c.key, c.isPrivate, c.isArchived, c.isDefault]), [["town-square", false, false, true], ["old-news", true, true, false]]);
    assert.deepEqual(messages.map((m) => ["channelKey" in m.to ? m.to.topic : "", m.markdown, m.edited]), [
      ["Exams", "Exams", null], ["Exams", "when?", 2.5], ["exams (2)", "exams", null], ["exams (2)", "tomorrow", null],
      [CHANNEL_TOPIC, "no replies here, @**ALBUS|albus**", null],
    ]);
    assert.deepEqual(read.notes, ["1 notice(s) of Mattermost's own (joins, leaves, header changes) were left out", '1 "scheme" line(s) of the export are not read by this importer']);
  });

  test("malformed exports are refused with what is wrong", async () => {
    await refused(writeExport([TEAM]), /line 1 is a "team" line; a Mattermost bulk export starts with its "version" line/);
    await refused(writeExport([{ type: "version", version: 2 }]), /version 2; this importer reads version 1/);
    await refused(writeExport([VERSION, TEAM], '{"type":"user","user":{"usern'), /export.jsonl line 3 is not valid JSON/);
    await refused(writeExport([VERSION, TEAM, { type: "channel", channel: { team: "hogwarts", name: "x", type: "Q" } }]), /line 3: 'type' is missing or malformed/);
    await refused(writeExport([VERSION, TEAM, channel("town-square"), post("nobody", "hi", 1)]), /the sender "nobody" is not among the export's users/);
    await refused(writeExport([VERSION]), /the export holds no team/);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "parley-mm-"));
    await refused(empty, /holds no Mattermost bulk export/);
    await refused(path.join(empty, "nothing.jsonl"), /does not exist/);
  });
});

describe("Mattermost reader: files beside the export", () => {
  test("attachments under data/ by either kind of path; a path climbing out of the export is missing", async () => {
    const file = writeExport([
      VERSION, TEAM, channel("town-square"), user("albus"),
      { type: "post", post: { ...post("albus", "three files", 1000).post, attachments: [{ path: "a/one.txt" }, { path: "data/b/two.pdf" }, { path: "../../etc/passwd" }] } },
      { type: "emoji", emoji: { name: "phoenix", image: "data/emoji/x/image" } },
    ]);
    const dir = path.dirname(file);
    for (const [rel, body] of [["data/a/one.txt", "1"], ["data/b/two.pdf", "2"], ["data/emoji/x/image", "png"]]) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), body);
    }
    const { read, messages } = await all(dir);
    assert.deepEqual(messages[0].files.map((f) => [f.name, f.contentType, fs.readFileSync(f.path, "utf8")]), [["one.txt", "text/plain", "1"], ["two.pdf", "application/pdf", "2"]]);
    assert.equal(messages[0].markdown, "three files\n*(passwd: file not in the export)*");
    assert.deepEqual(read.organization.emoji.map((e) => e.name), ["phoenix"]);
  });
});
