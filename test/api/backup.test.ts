/**
 * `npx parley backup` of a server under a sending load, `restore` into a fresh store, and a
 * server started on it: it answers as the original did. What must be there: every message whose
 * send was acknowledged before the backup began, with its uploads, and no message in part (each
 * one the restored server shows is exactly as the original shows it). Sends acknowledged while
 * the backup ran may be there or not. Refusals: a non-empty target, a damaged archive.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import pg from "pg";
import { after, before, test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { createStream, sendStreamMessage } from "../helpers/factories.ts";
import { runCli, startServer, startServerOnStore, type CliResult, type TestServer } from "../helpers/server.ts";
import { freshStore } from "../helpers/stores.ts";
import { forEachStore } from "../helpers/suite.ts";
import { fetchRaw, PNG, postFiles, uploadFile } from "./uploads-support.ts";

/** Messages acknowledged before the backup starts, at least (the load keeps sending through it). */
const SENT_BEFORE_BACKUP = 40;
const SENDERS = 4;

type Ack = { id: number; at: number; upload: string | null };

/** Sends to channel "load" as `users` in turn, one in four with an upload, until `stop()`; records each acknowledged send. */
function sendingLoad(server: TestServer, users: Credentials[]) {
  const acks: Ack[] = [];
  let stopping = false;
  const loop = async (user: Credentials, n: number) => {
    for (let i = 0; !stopping; i++) {
      let upload: string | null = null;
      if (i % 4 === 0) upload = expectSuccess(await uploadFile(server, user, `load-${n}-${i}.txt`, `bytes of ${n}-${i}`, "text/plain")).url as string;
      const content = upload === null ? `load ${n}-${i}` : `load ${n}-${i} [file](${upload})`;
      const res = await server.api.post(user, "/messages", { type: "stream", to: "load", topic: `t${n}`, content }, { validate: false });
      acks.push({ id: expectSuccess(res).id as number, at: Date.now(), upload });
    }
  };
  const running = Promise.all(users.map((u, n) => loop(u, n)));
  return {
    acks,
    async stop() {
      stopping = true;
      await running;
    },
  };
}

function expectRefused(res: CliResult, message: string): void {
  assert.deepEqual({ code: res.code, stdout: res.stdout }, { code: 1, stdout: "" }, `stderr: ${res.stderr}`);
  assert.ok(res.stderr.includes(message), `stderr should include ${JSON.stringify(message)}: ${res.stderr}`);
  assert.doesNotMatch(res.stderr, /\n\s+at /, "a user's error is a message, not a stack trace");
}

/** The archive with one byte of the database's data changed: gzip and tar are intact, the manifest's checksum is not. */
function alterDatabaseByte(archive: Buffer): Buffer {
  const tar = zlib.gunzipSync(archive);
  // The member's header (on a 512-byte boundary), not the manifest's mention of it.
  let header = tar.indexOf("database/parley.");
  while (header % 512 !== 0) header = tar.indexOf("database/parley.", header + 1);
  assert.ok(header > 0);
  tar[header + 512 + 100] ^= 0xff;
  return zlib.gzipSync(tar);
}

forEachStore("backup and restore", (kind) => {
  let original: TestServer;
  let restored: TestServer | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-backup-test-"));
  const archive = path.join(dir, "backup.tar.gz");
  const loadNarrow = [{ operator: "channel", operand: "load" }];
  const quietNarrow = [{ operator: "channel", operand: "quiet" }];
  const page = (server: TestServer, user: Credentials, narrow: unknown) =>
    server.api.get(user, "/messages", { anchor: "oldest", num_before: 0, num_after: 5000, narrow, apply_markdown: true }).then(expectSuccess);

  before(async () => {
    original = await startServer(kind);
  });
  after(async () => {
    await restored?.stop();
    await original?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a backup under a sending load restores to a server that answers as the original", async () => {
    const { owner, admin, moderator, member } = original.fixtures;
    for (const name of ["quiet", "load"]) await createStream(original, owner, name, { principals: JSON.stringify([owner.id, admin.id, moderator.id, member.id]) });
    // What the load leaves alone: a message with an upload, edited, reacted to and starred; a custom emoji.
    const upload = expectSuccess(await uploadFile(original, member, "plan.txt", "the plan", "text/plain")).url as string;
    const planned = await sendStreamMessage(original, member, "quiet", "plans", `first draft [plan](${upload})`);
    expectSuccess(await original.api.patch(member, `/messages/${planned}`, { content: `final [plan](${upload})` }));
    expectSuccess(await original.api.post(owner, `/messages/${planned}/reactions`, { emoji_name: "tada" }));
    expectSuccess(await original.api.post(owner, "/messages/flags", { messages: [planned], op: "add", flag: "starred" }));
    expectSuccess(await postFiles(original, admin, "/realm/emoji/shipit", [{ name: "e.png", data: PNG, type: "image/png" }]));
    // An uploaded avatar, as an import brings them (no endpoint uploads one): a file stored by user id.
    const avatarFile = path.join(original.store.dataDir, "uploads", "avatars", String(original.fixtures.realmId), `${admin.id}.png`);
    fs.mkdirSync(path.dirname(avatarFile), { recursive: true });
    fs.writeFileSync(avatarFile, PNG);
    await withDb(original, (db) => db.updateTable("users").set({ avatar_source: "U", avatar_version: 2 }).where("id", "=", admin.id).execute());

    const load = sendingLoad(original, [owner, admin, moderator, member].slice(0, SENDERS));
    while (load.acks.length < SENT_BEFORE_BACKUP) await new Promise((resolve) => setTimeout(resolve, 20));
    const began = Date.now();
    const ackedBefore = load.acks.filter((a) => a.at < began);
    const backup = await runCli(original.store, ["backup", "--output", archive]);
    const ended = Date.now();
    await load.stop();
    assert.equal(backup.code, 0, backup.stderr);
    assert.ok(load.acks.some((a) => a.at > began && a.at < ended), "sends went on while the backup ran");
    const printed = JSON.parse(backup.stdout);
    assert.deepEqual({ store: printed.store, missing: printed.missing_files }, { store: kind === "sqlite" ? "sqlite" : "postgresql", missing: 0 });
    assert.ok(printed.messages >= ackedBefore.length);

    const target = await freshStore(kind);
    const restore = await runCli(target, ["restore", archive], { env: { EXTERNAL_URL: original.url } });
    assert.equal(restore.code, 0, restore.stderr);
    restored = await startServerOnStore(target, original.fixtures, { EXTERNAL_URL: original.url });

    for (const user of [owner, member, original.fixtures.bot]) {
      // The newest message id differs: the original went on receiving sends after the backup's moment.
      const restoredMe = expectSuccess(await restored.api.get(user, "/users/me"));
      const originalMe = expectSuccess(await original.api.get(user, "/users/me"));
      assert.ok(restoredMe.max_message_id <= originalMe.max_message_id);
      assert.deepEqual({ ...restoredMe, max_message_id: null }, { ...originalMe, max_message_id: null });
    }
    const key = expectSuccess(await restored.api.post(null, "/fetch_api_key", { username: member.email, password: member.password }));
    assert.equal(key.api_key, member.apiKey);

    // The channel the load left alone answers exactly as before, its upload and the custom emoji too.
    assert.deepEqual(await page(restored, member, quietNarrow), await page(original, member, quietNarrow));
    assert.equal((await fetchRaw(restored, member, upload)).data.toString(), "the plan");
    const emoji = expectSuccess(await restored.api.get(member, "/realm/emoji")).emoji;
    assert.deepEqual(emoji, expectSuccess(await original.api.get(member, "/realm/emoji")).emoji);
    const shipit = Object.values(emoji as Record<string, { name: string; source_url: string }>).find((e) => e.name === "shipit");
    assert.deepEqual((await fetchRaw(restored, member, shipit?.source_url ?? "")).data, PNG);
    // The uploaded avatar too (named by no row but the user's avatar_source).
    const avatarPath = new URL(expectSuccess(await restored.api.get(admin, "/users/me")).avatar_url as string, original.url).pathname;
    assert.equal(avatarPath, `/user_avatars/${original.fixtures.realmId}/${admin.id}.png`);
    const avatar = await fetchRaw(restored, member, avatarPath);
    assert.equal(avatar.status, 200);
    assert.deepEqual(avatar.data, PNG);

    // The loaded channel: every send acknowledged before the backup began, each message whole.
    const after = (await page(restored, member, loadNarrow)).messages as Array<{ id: number }>;
    const have = new Set(after.map((m) => m.id));
    assert.deepEqual(ackedBefore.filter((a) => !have.has(a.id)), [], "messages acknowledged before the backup are restored");
    const originals = (await page(original, member, loadNarrow)).messages as Array<{ id: number }>;
    assert.deepEqual(after, originals.filter((m) => have.has(m.id)));
    for (const ack of load.acks.filter((a) => a.upload !== null && have.has(a.id))) {
      const got = await fetchRaw(restored, member, ack.upload ?? "");
      assert.equal(got.status, 200, `upload of message ${ack.id}`);
      assert.deepEqual(got.data, (await fetchRaw(original, member, ack.upload ?? "")).data);
    }
    // And the restored server goes on: a new message takes an id past every restored one.
    const next = await sendStreamMessage(restored, member, "quiet", "after", "after the restore");
    assert.ok(next > Math.max(...after.map((m) => m.id)));
  });

  test("a restore refuses a target that is not empty, and another store's backup", async () => {
    assert.ok(restored, "the first test restored a server");
    expectRefused(await runCli(restored.store, ["restore", archive]), `DATA_DIR (${restored.store.dataDir}) is not empty`);
    // The refused restore changed nothing.
    expectSuccess(await restored.api.get(original.fixtures.member, "/users/me"));
    const other = await freshStore(kind);
    const sqlite = await freshStore("sqlite");
    try {
      if (kind === "postgres") {
        // A database with a table, beside an empty DATA_DIR; and a SQLite target for a PostgreSQL backup.
        const client = new pg.Client({ connectionString: other.databaseUrl ?? "" });
        await client.connect();
        await client.query("create table notes (body text)");
        await client.end();
        const [database, store] = await Promise.all([runCli(other, ["restore", archive]), runCli(sqlite, ["restore", archive])]);
        expectRefused(database, "the database at DATABASE_URL is not empty (tables, views or sequences: 1)");
        expectRefused(store, "this is a backup of a PostgreSQL store, and this server is set up for SQLite");
        assert.deepEqual(fs.readdirSync(sqlite.dataDir), []);
      } else {
        fs.mkdirSync(path.join(other.dataDir, "uploads"));
        expectRefused(await runCli(other, ["restore", archive]), "is not empty (it holds uploads)");
      }
    } finally {
      await Promise.all([other.drop(), sqlite.drop()]);
    }
  });

  test("a damaged archive is refused with a clear message, leaving the target empty", async () => {
    const good = fs.readFileSync(archive);
    const cases: Array<[string, Buffer | null, string]> = [
      ["truncated.tar.gz", good.subarray(0, Math.floor(good.length / 2)), "the archive is damaged"],
      ["altered.tar.gz", alterDatabaseByte(good), "the archive is damaged: database/parley."],
      ["notes.txt", Buffer.from("not a backup\n"), "not a gzip file"],
      ["missing.tar.gz", null, "no such file"],
    ];
    const targets = await Promise.all(cases.map(() => freshStore(kind)));
    try {
      await Promise.all(
        cases.map(async ([name, bytes, message], i) => {
          if (bytes !== null) fs.writeFileSync(path.join(dir, name), bytes);
          expectRefused(await runCli(targets[i], ["restore", path.join(dir, name)]), message);
          assert.deepEqual(fs.readdirSync(targets[i].dataDir), [], `${name} left the target empty`);
        }),
      );
      expectRefused(await runCli(targets[0], ["verify-backup", path.join(dir, "altered.tar.gz")]), "does not match its checksum in the manifest");
      // Still empty (the database too): the good archive restores into it.
      const restore = await runCli(targets[1], ["restore", archive]);
      assert.equal(restore.code, 0, restore.stderr);
    } finally {
      await Promise.all(targets.map((t) => t.drop()));
    }
  });
}, { timeout: 120_000 });
