/**
 * `npx parley import-mattermost` on both stores, with upstream Zulip's Mattermost fixtures
 * (test/fixtures/mattermost/): the gryffindor team of the two-team export, and the one-team export
 * of direct conversations and files, each imported into a fresh store that a server then starts
 * on; the API answers as the imported people: people and roles, public and private channels,
 * the thread as its own topic, mentions rendered, reactions, custom emoji, direct and group
 * messages, an attached file. Exports the importer refuses leave the store empty.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Credentials } from "../helpers/client.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { expectRefused, importedCredentials, leftovers, NOTHING } from "../helpers/import-store.ts";
import { runCli, startServerOnStore, type CliResult, type TestServer } from "../helpers/server.ts";
import { freshStore, type FreshStore } from "../helpers/stores.ts";
import { forEachStore } from "../helpers/suite.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/mattermost");
const ENV = { EXTERNAL_URL: "https://hogwarts.parley.test" };
const CHANNEL_TOPIC = "imported from Mattermost";

type Message = { id: number; content: string; sender_email: string; subject: string; display_recipient: unknown; reactions: Array<{ emoji_name: string; emoji_code: string; reaction_type: string; user_id: number }> };

/** Imports `args` into a fresh store of `kind` and starts a server on it; the people's credentials by address. */
async function importAndServe(kind: FreshStore["kind"], args: string[]): Promise<{ store: FreshStore; server: TestServer; imported: CliResult; as: Map<string, Credentials> }> {
  const store = await freshStore(kind);
  const imported = await runCli(store, ["import-mattermost", ...args], { env: ENV });
  assert.equal(imported.code, 0, imported.stderr);
  const as = new Map((await importedCredentials(store)).map((u) => [u.email, { email: u.email, apiKey: u.apiKey }]));
  const server = await startServerOnStore(store, {} as Fixtures, ENV);
  return { store, server, imported, as };
}

async function messages(server: TestServer, who: Credentials, narrow: unknown[]): Promise<Message[]> {
  const res = await server.api.get(who, "/messages", { anchor: "oldest", num_before: 0, num_after: 100, narrow: JSON.stringify(narrow), apply_markdown: "true" });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.messages as Message[];
}

forEachStore("import-mattermost: upstream's two-team export, team gryffindor", (kind) => {
  let store: FreshStore;
  let server: TestServer | undefined;
  let imported: CliResult;
  let harry: Credentials;
  let ron: Credentials;

  before(async () => {
    // Refused first, into the same store: it must stay empty for the import that follows.
    const empty = await freshStore(kind);
    try {
      expectRefused(await runCli(empty, ["import-mattermost", FIXTURES], { env: ENV }), "the export holds 2 teams (gryffindor, slytherin): choose one with --team NAME");
      expectRefused(await runCli(empty, ["import-mattermost", FIXTURES, "--team", "hufflepuff"], { env: ENV }), 'no team "hufflepuff"');
      const broken = fs.mkdtempSync(path.join(os.tmpdir(), "parley-mm-broken-"));
      const lines = fs.readFileSync(path.join(FIXTURES, "export.json"), "utf8").split("\n");
      fs.writeFileSync(path.join(broken, "export.jsonl"), [...lines.slice(0, 20), lines[20].slice(0, 40)].join("\n"));
      expectRefused(await runCli(empty, ["import-mattermost", broken, "--team", "gryffindor"], { env: ENV }), "export.jsonl line 21 is not valid JSON");
      fs.rmSync(broken, { recursive: true, force: true });
      assert.deepEqual(await leftovers(empty), NOTHING);
    } finally {
      await empty.drop();
    }
    ({ store, server, imported } = await importAndServe(kind, [FIXTURES, "--team", "gryffindor"]).then((r) => {
      harry = r.as.get("harry@zulip.com")!;
      ron = r.as.get("ron@zulip.com")!;
      return r;
    }));
  });
  after(async () => {
    if (server) await server.stop();
    else await store?.drop();
  });

  test("the command reports what came across and what it left out", () => {
    assert.match(imported.stdout, /^Imported "Iago Realm" \(organization \d+, from Mattermost\)/);
    assert.match(imported.stdout, /note: 1 post\(s\) of team gryffindor in a channel the team does not have were left out/);
  });

  test("people and roles: Harry (system admin) owns the organization, Ron is a member", async () => {
    const users = (await server!.api.get(harry, "/users")).body.members as Array<{ email: string; full_name: string; role: number; is_active: boolean; is_bot: boolean }>;
    const people = users.filter((u) => !u.is_bot).map((u) => [u.full_name, u.role, u.is_active]).sort();
    assert.deepEqual(people, [["Harry Potter", 100, true], ["Ron Weasley", 400, true]]);
  });

  test("public and private channels with their descriptions and subscribers", async () => {
    const subs = (await server!.api.get(ron, "/users/me/subscriptions")).body.subscriptions as Array<{ name: string; invite_only: boolean; description: string }>;
    assert.deepEqual(subs.map((s) => [s.name, s.invite_only]).sort(), [["Dumbledores army", true], ["Gryffindor common room", false], ["Gryffindor quidditch team", false]]);
    assert.equal(subs.find((s) => s.name === "Dumbledores army")!.description, "A place for talking about Dumbledores army");
  });

  test("the thread is a topic of its own, named from its root post; other posts share the channel's topic", async () => {
    const army = (await server!.api.get(harry, "/get_stream_id", { stream: "Dumbledores army" })).body.stream_id as number;
    const topics = ((await server!.api.get(harry, `/users/me/${army}/topics`)).body.topics as Array<{ name: string }>).map((t) => t.name).sort();
    assert.deepEqual(topics, ["harry joined the channel.", CHANNEL_TOPIC]);
    const thread = await messages(server!, ron, [{ operator: "channel", operand: "Dumbledores army" }, { operator: "topic", operand: "harry joined the channel." }]);
    assert.deepEqual(thread.map((m) => [m.sender_email, m.content]), [["harry@zulip.com", "<p>harry joined the channel.</p>"], ["ron@zulip.com", "<p>The weather is so hot!</p>"]]);
    const rest = await messages(server!, ron, [{ operator: "channel", operand: "Dumbledores army" }, { operator: "topic", operand: CHANNEL_TOPIC }]);
    assert.deepEqual(rest.map((m) => m.content), ["<p>hey everyone</p>", "<p>ron added to the channel by harry.</p>", "<p>hello</p>"]);
  });

  test("a mention of @ron is rendered as a mention of Ron, who has it among his mentions", async () => {
    const ronId = ((await server!.api.get(ron, "/users/me")).body as { user_id: number }).user_id;
    const mentioned = await messages(server!, ron, [{ operator: "is", operand: "mentioned" }]);
    assert.equal(mentioned.length, 1);
    assert.equal(mentioned[0].content, `<p><span class="user-mention" data-user-id="${ronId}">@Ron Weasley</span> Welcome mate!</p>`);
  });

  test("reactions, unicode and custom, by the people who come across", async () => {
    const quidditch = await messages(server!, harry, [{ operator: "channel", operand: "Gryffindor quidditch team" }]);
    const hello = quidditch.find((m) => m.content === "<p>Hello world</p>")!;
    assert.deepEqual(hello.reactions.map((r) => [r.emoji_name, r.reaction_type]).sort(), [["big_smile", "unicode_emoji"], ["tick", "realm_emoji"], ["world_map", "unicode_emoji"]]);
    assert.deepEqual(quidditch.find((m) => m.content === "<p>Awesome!</p>")!.reactions, []);
  });

  test("custom emoji are the organization's, their images served", async () => {
    const emoji = Object.values((await server!.api.get(ron, "/realm/emoji")).body.emoji as Record<string, { name: string; source_url: string; deactivated: boolean }>);
    assert.deepEqual(emoji.map((e) => e.name).sort(), ["peerdium", "tick"]);
    const tick = emoji.find((e) => e.name === "tick")!;
    const res = await fetch(new URL(tick.source_url, server!.url));
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), fs.readFileSync(path.join(FIXTURES, "exported_emoji/7u7x8ytgp78q8jir81o9ejwwnr/image.png")));
  });

  test("a second import is refused: the store already holds an organization", async () => {
    expectRefused(await runCli(store, ["import-mattermost", FIXTURES, "--team", "slytherin"], { env: ENV }), 'the store already holds the organization "Iago Realm"');
  });
});

forEachStore("import-mattermost: upstream's export of direct conversations and files", (kind) => {
  let store: FreshStore;
  let server: TestServer | undefined;
  let as: Map<string, Credentials>;

  before(async () => {
    ({ store, server, as } = await importAndServe(kind, [path.join(FIXTURES, "direct_channel")]));
  });
  after(async () => {
    if (server) await server.stop();
    else await store?.drop();
  });

  test("direct and group direct messages, with the sender who was on no team deactivated", async () => {
    const harry = as.get("harry@zulip.com")!;
    const users = (await server!.api.get(harry, "/users", { include_deactivated: "true" })).body.members as Array<{ email: string; user_id: number; is_active: boolean; full_name: string }>;
    const id = (email: string) => users.find((u) => u.email === email)!.user_id;
    assert.equal(users.find((u) => u.full_name === "Tom Riddle")!.is_active, false);
    const withRon = await messages(server!, harry, [{ operator: "dm", operand: [id("ron@zulip.com")] }]);
    assert.deepEqual(withRon.map((m) => m.sender_email), ["ron@zulip.com", "harry@zulip.com"]);
    assert.match(withRon[1].content, /^<p>what's up<\/p>$|^<p>what’s up<\/p>$/);
    const group = await messages(server!, harry, [{ operator: "dm", operand: [id("ron@zulip.com"), id("ginny@zulip.com")] }]);
    assert.deepEqual(group.map((m) => [m.sender_email, m.content]), [
      ["ginny@zulip.com", "<p>Who is going to Hogsmeade this weekend?</p>"],
      ["ron@zulip.com", "<p>I am going as well</p>"],
      ["harry@zulip.com", "<p>I am going.</p>"],
    ]);
    const voldemort = await messages(server!, harry, [{ operator: "dm", operand: [id("voldemort@zulip.com")] }]);
    assert.deepEqual(voldemort.map((m) => m.content), ["<p>Hey Harry.</p>", "<p>Ahh. Here we go again.</p>"]);
  });

  test("the attachment in data/ is an upload of its message, served to the conversation's people only", async () => {
    const ron = as.get("ron@zulip.com")!;
    const ginny = as.get("ginny@zulip.com")!;
    const harryId = ((await server!.api.get(as.get("harry@zulip.com")!, "/users/me")).body as { user_id: number }).user_id;
    const [first] = await messages(server!, ron, [{ operator: "dm", operand: [harryId] }]);
    const link = /href="(\/user_uploads\/[^"]+\/harry-ron\.jpg)"/.exec(first.content);
    assert.ok(link, first.content);
    const get = (who: Credentials) => fetch(new URL(link[1], server!.url), { headers: { authorization: `Basic ${Buffer.from(`${who.email}:${who.apiKey}`).toString("base64")}` } });
    const res = await get(ron);
    assert.equal(res.status, 200);
    const file = path.join(FIXTURES, "direct_channel/data/20210622/teams/noteam/channels/mcrm7xee5bnpzn7u9ktsd91dwy/users/knq189b88fdxbdkeeasdynia4o/o3to4ezua3bajj31mzpkn96n5e/harry-ron.jpg");
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), fs.readFileSync(file));
    assert.equal((await get(ginny)).status, 403);
    const attachments = (await server!.api.get(ron, "/attachments")).body.attachments as Array<{ name: string; messages: unknown[] }>;
    assert.deepEqual(attachments.map((a) => [a.name, a.messages.length]), [["harry-ron.jpg", 1]]);
  });

  test("the post whose attachment is missing says so", async () => {
    const ron = as.get("ron@zulip.com")!;
    const room = await messages(server!, ron, [{ operator: "channel", operand: "Gryffindor common room" }]);
    const post = room.find((m) => m.content.includes("Looks like this channel is empty"))!;
    assert.match(post.content, /this is a file: file not in the export/);
  });
});
