/**
 * `npx parley export --full` of an organization seeded through Parley's own API
 * (export-roundtrip-seed.ts), imported into a fresh empty store with a server started on it:
 * the same users get the same answers from both servers (users, channels, subscriptions, groups,
 * emoji, linkifiers, profile fields, messages in several narrows with their flags, reactions and
 * edit history, unread state, muted topics and users, alert words, scheduled messages, snippets,
 * the upload's bytes), but for what docs/export.md names. --full-with-consent takes the
 * consenting member's direct messages and no one else's. An export taken while messages are sent
 * and reacted to is one state: every UserMessage, reaction and upload link names an exported message.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { extractTarGz } from "../../src/formats/zulip/tar-extract.ts";
import { expectSuccess, type Credentials, type Params } from "../helpers/client.ts";
import { runCli, startServerOnStore, type TestServer } from "../helpers/server.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { importedCredentials } from "../helpers/import-store.ts";
import { freshStore } from "../helpers/stores.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { differences } from "./import-zulip-support.ts";
import { fetchRaw } from "./uploads-support.ts";
import { seedOrganization, type Seeded } from "./export-roundtrip-seed.ts";

type Json = Record<string, Array<Record<string, unknown>>>;

/** The rows of an export's tarball: realm.json's tables, every messages file's, attachment.json's, migration_status.json. */
async function unpack(tarball: string, into: string) {
  await extractTarGz(tarball, into);
  const root = path.join(into, fs.readdirSync(into)[0]);
  const read = (name: string) => JSON.parse(fs.readFileSync(path.join(root, name), "utf8"));
  const files = fs.readdirSync(root).filter((n) => /^messages-\d{6}\.json$/.test(n)).sort().map((f) => read(f) as Json);
  return {
    realm: read("realm.json") as Json,
    messages: files.flatMap((p) => p.zerver_message),
    userMessages: files.flatMap((p) => p.zerver_usermessage),
    attachments: (read("attachment.json") as Json).zerver_attachment,
    migrationStatus: read("migration_status.json"),
  };
}


/** Fields that name the process or the event queue, not the organization; and API keys, which the import makes anew (docs/export.md). */
const VOLATILE = new Set(["queue_id", "last_event_id", "server_generation", "server_timestamp", "event_queue_longpoll_timeout_seconds", "api_key"]);

/**
 * The answer without VOLATILE's fields and without the recipient_id of a direct message between
 * two people or to oneself: Zulip's format has no id for such a conversation, so the import
 * numbers it anew (docs/export.md).
 */
function stripVolatile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripVolatile);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const pair = record.type === "private" && Array.isArray(record.display_recipient) && record.display_recipient.length <= 2;
  return Object.fromEntries(Object.entries(record).filter(([k]) => !VOLATILE.has(k) && !(pair && k === "recipient_id")).map(([k, v]) => [k, stripVolatile(v)]));
}

const narrow = (...terms: Array<[string, unknown]>) => ({ anchor: "oldest", num_before: 0, num_after: 1000, apply_markdown: true, narrow: JSON.stringify(terms.map(([operator, operand]) => ({ operator, operand }))) });

/** The calls compared, as [method, path, params]. */
function calls(seeded: Seeded, owner: number): Array<[string, string, Params]> {
  const s = seeded.streams;
  return [
    ["GET", "/users", { include_custom_profile_fields: true }],
    ["GET", "/users/me", {}],
    ["GET", "/streams", {}],
    ["GET", "/users/me/subscriptions", { include_subscribers: true }],
    ["GET", "/user_groups", {}],
    ["GET", "/realm/emoji", {}],
    ["GET", "/realm/linkifiers", {}],
    ["GET", "/realm/profile_fields", {}],
    ["GET", "/messages", narrow()],
    ["GET", "/messages", narrow(["channel", s.town])],
    ["GET", "/messages", narrow(["channel", s.secret])],
    ["GET", "/messages", narrow(["channel", s.shared])],
    ["GET", "/messages", narrow(["is", "dm"])],
    ["GET", "/messages", narrow(["dm", [owner]])],
    ["GET", "/messages", narrow(["is", "starred"])],
    ["GET", "/messages", narrow(["has", "attachment"])],
    ["GET", "/messages", narrow(["is", "unread"])],
    ["GET", `/messages/${seeded.edited}/history`, {}],
    ["GET", `/messages/${seeded.moved}/history`, {}],
    ["GET", "/users/me/alert_words", {}],
    ["GET", "/scheduled_messages", {}],
    ["GET", "/saved_snippets", {}],
    ["GET", "/bots", {}],
    ["POST", "/register", { fetch_event_types: JSON.stringify(["message", "update_message_flags", "user_topic", "muted_users", "alert_words", "scheduled_messages", "saved_snippets", "user_status", "realm_user_groups", "custom_profile_fields"]) }],
  ];
}

describeEachStore("export: a seeded organization, exported and imported into an empty store, answers as the original", { timeout: 240_000 }, (server, kind) => {
  let seeded: Seeded;
  let work: string;
  let copy: TestServer | undefined;
  let keys: Map<number, string>;

  /** Exports the suite's store with `flag` into work/`name`.tar.gz. */
  async function exportAs(flag: string, name: string): Promise<string> {
    const file = path.join(work, `${name}.tar.gz`);
    const res = await runCli(server.store, ["export", flag, "--output", file]);
    assert.equal(res.code, 0, res.stderr);
    return file;
  }

  before(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "parley-export-rt-"));
    seeded = await seedOrganization(server.current);
    const file = await exportAs("--full", "full");
    const target = await freshStore(kind);
    const imported = await runCli(target, ["import-zulip", file], { env: { EXTERNAL_URL: server.url } });
    if (imported.code !== 0) await target.drop();
    assert.equal(imported.code, 0, imported.stderr);
    keys = new Map((await importedCredentials(target)).map((u) => [u.id, u.apiKey]));
    copy = await startServerOnStore(target, {} as Fixtures, { EXTERNAL_URL: server.url });
  });
  after(async () => {
    await copy?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  const people = () => {
    const f = server.fixtures;
    return { owner: f.owner, member: f.member, guest: f.guest, admin: f.admin, late: seeded.late };
  };

  for (const who of ["owner", "member", "guest", "admin", "late"] as const) {
    test(`${who}: every compared call answers on the imported copy as on the original`, async () => {
      const user: Credentials & { id: number } = people()[who];
      const copyUser = { email: user.email, apiKey: keys.get(user.id) ?? "" };
      const found: string[] = [];
      for (const [method, p, params] of calls(seeded, server.fixtures.owner.id)) {
        const a = await server.api.request(method, p, user, params, { validate: false });
        const b = await copy!.api.request(method, p, copyUser, params, { validate: false });
        const diffs = a.status !== b.status ? [`status ${b.status} (original ${a.status}): ${JSON.stringify(b.body).slice(0, 200)}`] : differences(stripVolatile(a.body) as never, stripVolatile(b.body) as never);
        for (const d of diffs) found.push(`${method} ${p} ${JSON.stringify(params.narrow ?? "")}: ${d}`);
      }
      assert.deepEqual(found, []);
    });
  }

  test("the upload is served from the copy with its bytes", async () => {
    const { member } = server.fixtures;
    const original = await fetchRaw(server.current, member, seeded.upload);
    const copied = await fetchRaw(copy!, { email: member.email, apiKey: keys.get(member.id) ?? "" }, seeded.upload);
    assert.equal(original.status, 200);
    assert.deepEqual({ status: copied.status, data: copied.data.toString() }, { status: 200, data: "the plan, in full" });
  });

  test("migration_status.json claims the full migration list of upstream's fixture (Zulip 10.0-dev)", async () => {
    const out = await unpack(path.join(work, "full.tar.gz"), path.join(work, "full"));
    const fixture = JSON.parse(fs.readFileSync(new URL("../../src/formats/zulip/migration-status-10.0.json", import.meta.url), "utf8"));
    assert.deepEqual(out.migrationStatus, { zulip_version: fixture.zulip_version, migrations_by_app: fixture.migrations_by_app });
    assert.equal(out.migrationStatus.migrations_by_app.zerver.length, 606);
  });

  test("--full-with-consent: the consenting member's direct messages come across, others' do not", async () => {
    const file = await exportAs("--full-with-consent", "consent");
    const out = await unpack(file, path.join(work, "consent"));
    const ids = new Set(out.messages.map((m) => m.id as number));
    for (const id of seeded.consentedDirect) assert.ok(ids.has(id), `direct message ${id} of the member is exported`);
    for (const id of seeded.otherDirect) assert.ok(!ids.has(id), `direct message ${id} of others is left out`);
    const target = await freshStore(kind);
    try {
      const imported = await runCli(target, ["import-zulip", file], { env: { EXTERNAL_URL: server.url } });
      assert.equal(imported.code, 0, imported.stderr);
    } finally {
      await target.drop();
    }
  });

  test("an export taken while messages are sent and reacted to is one state of the store", async () => {
    const { owner, member } = server.fixtures;
    let stopping = false;
    let sent = 0;
    const load = (async () => {
      while (!stopping) {
        const id = expectSuccess(await server.api.post(owner, "/messages", { type: "stream", to: seeded.streams.town, topic: "load", content: `load ${sent}` }, { validate: false })).id as number;
        expectSuccess(await server.api.post(member, `/messages/${id}/reactions`, { emoji_name: "tada" }, { validate: false }));
        expectSuccess(await server.api.post(member, "/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "starred" }, { validate: false }));
        sent += 1;
      }
    })();
    const began = sent;
    const file = await exportAs("--full", "moving");
    const during = sent - began;
    stopping = true;
    await load;
    assert.ok(during > 0, "messages were sent while the export ran");
    const out = await unpack(file, path.join(work, "moving"));
    const ids = new Set(out.messages.map((m) => m.id as number));
    const strays = [
      ...out.userMessages.filter((um) => !ids.has(um.message as number)).map((um) => `usermessage of ${um.message}`),
      ...out.realm.zerver_reaction.filter((r) => !ids.has(r.message as number)).map((r) => `reaction on ${r.message}`),
      ...out.attachments.flatMap((a) => (a.messages as number[]).filter((m) => !ids.has(m)).map((m) => `upload link to ${m}`)),
    ];
    assert.deepEqual(strays, []);
    // Each exported load message is whole: its reaction and the member's star came with it.
    const loadIds = out.messages.filter((m) => m.subject === "load").map((m) => m.id as number);
    const reacted = new Set(out.realm.zerver_reaction.map((r) => r.message as number));
    const starredRows = new Set(out.userMessages.filter((um) => um.user_profile === member.id && ((um.flags_mask as number) & 2) !== 0).map((um) => um.message as number));
    const partial = loadIds.filter((id) => reacted.has(id) !== starredRows.has(id));
    assert.ok(partial.length <= 1, `at most the message in flight is partial: ${partial}`);
  });
});
