/**
 * `npx parley export` on both stores, checked by round trip: the fixture export of a real
 * upstream Zulip (../shared/fixtures/zulip-export-a/) is imported, exported again by Parley,
 * and that export imported into a second, empty store; every call of the fixture's API snapshot
 * must then answer as it did on Zulip (import-zulip-support.ts's comparison), so nothing the
 * API shows was lost on the way out. The export kinds are checked on the tarball: --public and
 * --full-with-consent (nobody has consented in the fixture) leave out direct messages, private
 * channels and users' private data.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { extractTarGz } from "../../src/formats/zulip/tar-extract.ts";
import { runCli, startServerOnStore, type TestServer } from "../helpers/server.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { importedCredentials } from "../helpers/import-store.ts";
import { freshStore, type FreshStore } from "../helpers/stores.ts";
import { forEachStore } from "../helpers/suite.ts";
import { avatarPaths, callDifferences, FIXTURE_TARBALL, loadSnapshot, type NormalizeContext } from "./import-zulip-support.ts";

const ENV = { EXTERNAL_URL: "https://lumen.zulip.test" };
const snapshot = loadSnapshot();
const SYSTEM_BOT_IDS = new Set([1, 6, 7]);


type Json = Record<string, Array<Record<string, unknown>>>;

/** An export's tarball unpacked: realm.json and every messages file's rows. */
async function unpack(tarball: string, into: string): Promise<{ root: string; realm: Json; messages: Array<Record<string, unknown>>; userMessages: Array<Record<string, unknown>> }> {
  await extractTarGz(tarball, into);
  const [top] = fs.readdirSync(into);
  const root = path.join(into, top);
  const realm = JSON.parse(fs.readFileSync(path.join(root, "realm.json"), "utf8")) as Json;
  const files = fs.readdirSync(root).filter((n) => /^messages-\d{6}\.json$/.test(n)).sort();
  const parsed = files.map((f) => JSON.parse(fs.readFileSync(path.join(root, f), "utf8")) as Json);
  return { root, realm, messages: parsed.flatMap((p) => p.zerver_message), userMessages: parsed.flatMap((p) => p.zerver_usermessage) };
}

forEachStore("export: the fixture, imported, exported and imported again, answers as Zulip did", (kind) => {
  let source: FreshStore;
  let copy: FreshStore;
  let server: TestServer | undefined;
  let keys: Map<number, string>;
  let work: string;
  let ctx: NormalizeContext;
  let exported: { stdout: string; stderr: string; code: number | null };

  before(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "parley-export-"));
    await extractTarGz(FIXTURE_TARBALL, path.join(work, "fixture"));
    ctx = { systemBotIds: SYSTEM_BOT_IDS, avatarPaths: avatarPaths(path.join(work, "fixture/zexport-A")) };
    source = await freshStore(kind);
    assert.equal((await runCli(source, ["import-zulip", FIXTURE_TARBALL], { env: ENV })).code, 0);
    exported = await runCli(source, ["export", "--output", path.join(work, "full.tar.gz")], { env: ENV });
    assert.equal(exported.code, 0, exported.stderr);
    copy = await freshStore(kind);
    const imported = await runCli(copy, ["import-zulip", path.join(work, "full.tar.gz")], { env: ENV });
    assert.equal(imported.code, 0, imported.stderr);
    keys = new Map((await importedCredentials(copy)).map((u) => [u.id, u.apiKey]));
    server = await startServerOnStore(copy, {} as Fixtures, ENV);
  });
  after(async () => {
    fs.rmSync(work, { recursive: true, force: true });
    await source?.drop();
    if (server) await server.stop();
    else await copy?.drop();
  });

  test("the command reports the export and its file; the tarball has upstream's layout", async () => {
    assert.match(exported.stdout, /^Exported "Lumen Robotics" \(full\) in [\d.]+ s: 508 messages, \d+ bytes\./);
    assert.ok(exported.stdout.includes(path.join(work, "full.tar.gz")));
    assert.match(exported.stderr, /export: messages: 1 files, 508 messages/);
    const out = await unpack(path.join(work, "full.tar.gz"), path.join(work, "full"));
    for (const name of ["realm.json", "messages-000001.json", "attachment.json", "stats.json", "migration_status.json", "uploads/records.json", "avatars/records.json", "emoji/records.json"]) {
      assert.ok(fs.existsSync(path.join(out.root, name)), name);
    }
    assert.equal(out.messages.length, 508);
    assert.equal(out.realm.zerver_reaction.length, 178);
    assert.equal(out.realm.zerver_userprofile_crossrealm.length, 3);
    assert.deepEqual(out.realm.zerver_realm.map((r) => [r.id, r.string_id]), [[13, "lumen"]]);
  });

  for (const [email, user] of Object.entries(snapshot._meta.users)) {
    test(`${user.key} (${user.role}): every snapshot call answers as it did on Zulip`, async () => {
      const creds = { email, apiKey: keys.get(user.user_id) ?? "" };
      assert.deepEqual(await callDifferences(server!.api, creds, snapshot[email], ctx), []);
    });
  }

  test("an upload and a custom emoji are served from the second import", async () => {
    const ada = { email: "ada.okafor@lumenrobotics.example", apiKey: keys.get(147) ?? "" };
    const pathId = "13/ad/6Tb9laJPLB2VFNouyHQNllBc/pointcloud-frame-0412.png";
    const res = await fetch(`${server!.url}/user_uploads/${pathId}`, { headers: { authorization: `Basic ${Buffer.from(`${ada.email}:${ada.apiKey}`).toString("base64")}` } });
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), fs.readFileSync(path.join(work, "fixture/zexport-A/uploads", pathId)));
    assert.equal((await fetch(`${server!.url}/user_avatars/13/emoji/images/fab817e7.png`)).status, 200);
  });

  for (const flag of ["--public", "--full-with-consent"]) {
    test(`${flag} leaves out direct messages, private channels' messages and private data (nobody consented)`, async () => {
      const file = path.join(work, `${flag.slice(2)}.tar.gz`);
      const res = await runCli(source, ["export", flag, "--output", file], { env: ENV });
      assert.equal(res.code, 0, res.stderr);
      const out = await unpack(file, path.join(work, flag.slice(2)));
      const streams = out.realm.zerver_stream;
      // A public export holds no private channel; one with consent holds their rows, not their messages.
      if (flag === "--public") assert.ok(streams.every((s) => s.invite_only === false), "no private channel");
      const publicStreams = new Set(streams.filter((s) => s.invite_only === false).map((s) => s.id));
      const streamRecipients = new Set(out.realm.zerver_recipient.filter((r) => r.type === 2 && publicStreams.has(r.type_id as number)).map((r) => r.id));
      assert.ok(out.messages.length > 0 && out.messages.every((m) => streamRecipients.has(m.recipient as number)), "only public channels' messages");
      assert.equal(out.realm.zerver_huddle.length, 0);
      for (const table of ["zerver_usertopic", "zerver_alertword", "zerver_muteduser", "zerver_scheduledmessage"]) assert.equal(out.realm[table].length, 0, table);
      assert.ok(out.userMessages.every((um) => um.flags_mask === 1 || um.flags_mask === 1 + 1024), "flags say only read (historical for non-recipients)");
      const reimport = await freshStore(kind);
      try {
        const imported = await runCli(reimport, ["import-zulip", file], { env: ENV });
        assert.equal(imported.code, 0, imported.stderr);
      } finally {
        await reimport.drop();
      }
    });
  }

  test("an existing output file is refused", async () => {
    const res = await runCli(source, ["export", "--output", path.join(work, "full.tar.gz")], { env: ENV });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /already exists/);
  });
});
