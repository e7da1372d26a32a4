/**
 * `npx parley import-slack` on both stores, with test/fixtures/slack/ (upstream Zulip's Slack
 * import fixtures, assembled into one export: see its README) zipped as Slack hands it out: the
 * import runs into a fresh store, the server starts on it, and the API answers as the imported
 * people: users and roles, public, private and archived channels (subscribers of those exported
 * without members: who wrote or joined there; #general everyone), thread topics and the channel
 * topic, direct and group direct messages, rendered content (mentions with user ids, links,
 * bold), reactions, an edit's time, an attached file served. A malformed export is refused and
 * leaves the store empty.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { zipSync } from "fflate";
import { runCli, startServerOnStore, type CliResult, type TestServer } from "../helpers/server.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { expectRefused, importedCredentials, leftovers, NOTHING } from "../helpers/import-store.ts";
import { freshStore, type FreshStore } from "../helpers/stores.ts";
import { forEachStore } from "../helpers/suite.ts";

const FIXTURE = path.join(import.meta.dirname, "../fixtures/slack");
type Creds = { email: string; apiKey: string };
type Message = { id: number; content: string; subject: string; sender_id: number; last_edit_timestamp?: number; reactions: Array<{ emoji_name: string; user_id: number }>; flags: string[] };

/** The fixture folder as a .zip of its files, as Slack's export page gives it. */
function zipFixture(dir: string): string {
  const files: Record<string, Uint8Array> = {};
  for (const name of fs.readdirSync(FIXTURE, { recursive: true }) as string[]) {
    const full = path.join(FIXTURE, name);
    if (fs.statSync(full).isFile() && name !== "README.md") files[name.split(path.sep).join("/")] = fs.readFileSync(full);
  }
  const out = path.join(dir, "Plan8 Slack export Jun 5 2015 - Apr 23 2026.zip");
  fs.writeFileSync(out, zipSync(files));
  return out;
}

/** Each imported person's id, address and new API key, by full name. */
async function people(store: FreshStore): Promise<Map<string, Creds & { id: number }>> {
  return new Map((await importedCredentials(store)).map((u) => [u.fullName, { id: u.id, email: u.email, apiKey: u.apiKey }]));
}

forEachStore("import-slack: upstream's Slack fixtures, zipped", (kind) => {
  let store: FreshStore;
  let server: TestServer | undefined;
  let imported: CliResult;
  let who: Map<string, Creds & { id: number }>;
  let work: string;

  const as = (name: string): Creds => {
    const p = who.get(name);
    assert.ok(p, `no imported user ${name}`);
    return p;
  };
  const messages = async (name: string, narrow: unknown[]): Promise<Message[]> => {
    const res = await server!.api.get(as(name), "/messages", { anchor: "oldest", num_before: 0, num_after: 100, narrow: JSON.stringify(narrow), apply_markdown: "true" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body as { messages: Message[] }).messages;
  };

  before(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "parley-slack-test-"));
    store = await freshStore(kind);
    imported = await runCli(store, ["import-slack", zipFixture(work)]);
    assert.equal(imported.code, 0, imported.stderr + imported.stdout);
    who = await people(store);
    server = await startServerOnStore(store, {} as Fixtures);
  });
  after(async () => {
    fs.rmSync(work, { recursive: true, force: true });
    if (server) await server.stop();
    else await store?.drop();
  });

  test("the command reports what came across and the integrations to set up again", () => {
    assert.match(imported.stdout, /^Imported "Plan8" \(organization 1, from Slack\)/);
    for (const line of ["  channels: 5", "  messages: 18", "  reactions: 4", "  uploads: 1"]) assert.ok(imported.stdout.includes(line), `summary lacks ${line}:\n${imported.stdout}`);
    assert.match(imported.stdout, /note: Slack integrations and apps to set up again \(integration_logs\.json\): Giphy, Google Drive, Slack API Tester/);
  });

  test("people arrive with their roles; an address Slack gave is kept", async () => {
    const res = await server!.api.get(as("Jon"), "/users");
    const members = (res.body as { members: Array<{ full_name: string; role: number; email: string; is_bot: boolean }> }).members;
    const byName = new Map(members.map((m) => [m.full_name, m]));
    assert.equal(byName.get("Josef K.")?.role, 100);
    assert.equal(byName.get("Rishi हिन्दी 汉语")?.role, 200);
    assert.equal(byName.get("Steve Howell")?.role, 400);
    assert.equal(who.get("Jon")?.email, "jon@example.com");
    assert.equal(members.length, 7);
  });

  test("channels: public, archived and private ones, with their members", async () => {
    const josef = await server!.api.get(as("Josef K."), "/users/me/subscriptions");
    const names = (josef.body as { subscriptions: Array<{ name: string; invite_only: boolean; is_archived?: boolean }> }).subscriptions.map((s) => s.name).sort();
    // random is archived (Slack's is_archived): subscriptions list active channels only.
    assert.deepEqual(names, ["general", "private-team"]);
    const all = await server!.api.get(as("Josef K."), "/streams", { include_all: "true", exclude_archived: "false" });
    const streams = (all.body as { streams: Array<{ name: string; invite_only: boolean; is_archived: boolean; description: string }> }).streams;
    const priv = streams.find((s) => s.name === "private-team");
    assert.equal(priv?.invite_only, true);
    assert.equal(priv?.description, "Only the two of us");
    assert.equal(streams.find((s) => s.name === "random")?.is_archived, true);
    const steve = await server!.api.get(as("Steve Howell"), "/users/me/subscriptions");
    assert.ok(!(steve.body as { subscriptions: Array<{ name: string }> }).subscriptions.some((s) => s.name === "private-team"), "Steve is not in the private channel");
  });

  test("public channels exported without members: who wrote or joined there (not who left), and #general everyone", async () => {
    // Jon's subscriptions with their subscribers, archived #random included (a client that shows archived channels).
    const res = await server!.api.post(as("Jon"), "/register", { fetch_event_types: ["subscription"], event_types: ["message"], include_subscribers: "true", client_capabilities: { notification_settings_null: true, archived_channels: true } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const subscriptions = (res.body as { subscriptions: Array<{ name: string; subscribers: number[] }> }).subscriptions;
    const subscribers = (name: string) => [...subscriptions.find((s) => s.name === name)!.subscribers].sort((a, b) => a - b);
    const ids = (...names: string[]) => names.map((n) => who.get(n)!.id).sort((a, b) => a - b);
    // Rishi joined #random and left it again; Josef, Rhea, Steve, Jane and Jon wrote there.
    assert.deepEqual(subscribers("random"), ids("Josef K.", "Rhea Parekh", "Steve Howell", "Jane", "Jon"));
    assert.deepEqual(subscribers("general"), [...who.values()].map((p) => p.id).sort((a, b) => a - b));
    // A channel with its member list keeps it.
    assert.deepEqual(subscribers("general1"), ids("Jon"));
  });

  test("a message's edit time comes across: last_edit_timestamp, shown as edited", async () => {
    const random = await messages("Jon", [{ operator: "channel", operand: "random" }]);
    const edited = random.find((m) => m.content.includes("This is Steve typing random stuff."));
    assert.equal(edited?.last_edit_timestamp, 1516454601);
    assert.ok(random.filter((m) => m.last_edit_timestamp !== undefined).length === 1, "only the edited message has an edit time");
    const history = await server!.api.get(as("Jon"), `/messages/${edited!.id}/history`);
    assert.equal(history.status, 200, JSON.stringify(history.body));
    assert.equal((history.body as { message_history: unknown[] }).message_history.length, 1, "Slack keeps no earlier versions: the history is the message as it is");
  });

  test("threads become topics named from their first message; the rest is in 'imported from Slack'", async () => {
    const random = await messages("Jon", [{ operator: "channel", operand: "random" }]);
    const topics = (t: string) => random.filter((m) => m.subject === t).map((m) => m.content);
    assert.deepEqual(topics("message body text").length, 2);
    assert.ok(topics("message body text")[1].includes("random"));
    assert.equal(topics("another thread message").length, 2);
    assert.ok(topics("imported from Slack").some((c) => c.includes("This is Steve typing random stuff.")));
    assert.ok(!random.some((m) => m.content.includes("has joined the channel")), "joins are not messages");
    const general = await messages("Jon", [{ operator: "channel", operand: "general" }]);
    assert.deepEqual(general.filter((m) => m.subject === "@Jon please reply to this message").length, 2);
  });

  test("rendered content: mentions with the user's id, bold, italics, links, channel links; wildcards", async () => {
    const general = await messages("Jane", [{ operator: "channel", operand: "general" }]);
    const hey = general.find((m) => m.content.includes("hey!"));
    assert.ok(hey);
    assert.match(hey.content, new RegExp(`<span class="user-mention" data-user-id="${who.get("Jane")!.id}">@Jane</span>`));
    assert.match(hey.content, /<strong>bold<\/strong>/);
    assert.match(hey.content, /<em>italic<\/em>/);
    assert.match(hey.content, /<a href="https:\/\/chat\.zulip\.org\/">a link<\/a>/);
    assert.match(hey.content, /class="stream" data-stream-id="\d+"/);
    assert.ok(hey.flags.includes("mentioned"), "Jane's mention sets her flag");
    const random = await messages("Rhea Parekh", [{ operator: "channel", operand: "random" }]);
    assert.ok(random.some((m) => m.content.includes('data-user-id="*"')), "<!channel> is @all");
    assert.ok(random.some((m) => m.content.includes("<del>")), "~strike~ renders struck through");
    const file = random.find((m) => m.content.includes("dirac72.md"));
    assert.match(file!.content, /href="https:\/\/plan8team\.slack\.com\/files\/U6006P1CN\/F8VSW87RR\/dirac72\.md"/);
  });

  test("reactions come across, skin tones dropped", async () => {
    const random = await messages("Jon", [{ operator: "channel", operand: "random" }]);
    const reply = random.find((m) => m.subject === "message body text" && m.content.includes("<p>random</p>"));
    const names = reply!.reactions.map((r) => `${r.emoji_name}:${r.user_id}`).sort();
    assert.deepEqual(names, [`+1:${who.get("Jon")!.id}`, `+1:${who.get("Josef K.")!.id}`, `tada:${who.get("Jon")!.id}`].sort());
  });

  test("direct and group direct messages", async () => {
    const dm = await messages("Jane", [{ operator: "dm", operand: [who.get("Jon")!.id] }]);
    assert.equal(dm.length, 1);
    assert.match(dm[0].content, /Hi Jane, a direct message/);
    assert.deepEqual(dm[0].reactions.map((r) => r.emoji_name), ["wave"]);
    const group = await messages("John", [{ operator: "dm", operand: [who.get("Jon")!.id, who.get("Jane")!.id] }]);
    assert.equal(group.length, 1);
    assert.match(group[0].content, /Hello all three of us/);
  });

  test("a file the export holds is uploaded and served; code is kept literal", async () => {
    const priv = await messages("Josef K.", [{ operator: "channel", operand: "private-team" }]);
    const match = /href="(\/user_uploads\/1\/[^"]+\/notes\.txt)"/.exec(priv[0].content);
    assert.ok(match, priv[0].content);
    const creds = as("Josef K.");
    const res = await fetch(`${server!.url}${match[1]}`, { headers: { authorization: `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString("base64")}` } });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "The plan: import everything from Slack.\n");
    assert.match(priv[1].content, /<code>code here<\/code>/);
    assert.match(priv[1].content, /<div class="codehilite"><pre><span><\/span><code>multi\nline\n<\/code><\/pre><\/div>/);
  });
});

forEachStore("import-slack: a malformed export is refused", (kind) => {
  let store: FreshStore;
  let work: string;
  before(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "parley-slack-bad-"));
    store = await freshStore(kind);
  });
  after(async () => {
    fs.rmSync(work, { recursive: true, force: true });
    await store.drop();
  });

  test("a damaged day file, a missing users.json and a file that is no zip leave the store empty", async () => {
    const broken = path.join(work, "broken");
    fs.cpSync(FIXTURE, broken, { recursive: true });
    fs.writeFileSync(path.join(broken, "random/2018-01-20.json"), '[{"type": "message", "text": "cut sh');
    const cases: Array<[string, string]> = [[broken, "random/2018-01-20.json is not valid JSON"]];
    const noUsers = path.join(work, "no-users");
    fs.cpSync(FIXTURE, noUsers, { recursive: true });
    fs.rmSync(path.join(noUsers, "users.json"));
    cases.push([noUsers, "users.json is missing"]);
    const notZip = path.join(work, "export.zip");
    fs.writeFileSync(notZip, "not a zip");
    cases.push([notZip, "is not a readable zip archive"]);
    for (const [source, message] of cases) {
      expectRefused(await runCli(store, ["import-slack", source]), message);
      assert.deepEqual(await leftovers(store), NOTHING, `after ${path.basename(source)}`);
    }
  });
});
