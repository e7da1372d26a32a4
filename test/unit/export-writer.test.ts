/**
 * The Zulip export writer (src/formats/zulip/export-writer.ts) against the export reader: what it
 * writes, streamed from generators, packed into a tarball, reads back table by table with the
 * counts stats.json gives and the stored files where records.json says.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { packTarGz, ZulipExportWriter } from "../../src/formats/zulip/export-writer.ts";
import { ZulipExport } from "../../src/formats/zulip/export-reader.ts";
import { anyRow } from "../../src/formats/zulip/rows.ts";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "parley-export-writer-"));
after(() => fs.rmSync(work, { recursive: true, force: true }));

async function* numbered(n: number, extra: Record<string, unknown>): AsyncGenerator<object> {
  for (let id = 1; id <= n; id++) yield { id, ...extra };
}

test("an export written and packed reads back: tables, message files, records and stats", async () => {
  const dir = path.join(work, "zulip-export-test");
  const writer = await ZulipExportWriter.create(dir, "11.0-test");
  await writer.writeRealm({ zerver_realm: [{ id: 3, name: "Quote \" and ünïcode" }], zerver_stream: numbered(2500, { name: "s" }), zerver_huddle: [] });
  const message = (id: number) => ({ id, sender: 5, recipient: 7, subject: "t", content: "hi", rendered_content: "<p>hi</p>", date_sent: 1700000000.5, sending_client: 1 });
  await writer.writeMessages([message(10), message(11)], [{ id: 1, message: 10, user_profile: 5, flags_mask: 1 }]);
  await writer.writeMessages([message(12)], []);
  const source = path.join(work, "avatar.png");
  fs.writeFileSync(source, "not really a png");
  await writer.addFile("avatars", "3/5.png", source, { realm_id: 3, user_profile_id: 5 });
  await assert.rejects(writer.addFile("uploads", "../escape", source, {}), /unsafe path/);
  await writer.writeAttachments(numbered(2, { path_id: "x" }));
  await writer.finish();
  await assert.rejects(writer.writeMessages([], []), /already finished/);

  const stats = JSON.parse(fs.readFileSync(path.join(dir, "stats.json"), "utf8"));
  assert.deepEqual(stats["messages-000002"], { zerver_message: 1, zerver_usermessage: 0 });
  assert.equal(stats.realm.zerver_stream, 2500);
  assert.equal(stats.avatars_records, 1);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, "uploads/records.json"), "utf8")), []);

  const tarball = path.join(work, "out.tar.gz");
  await packTarGz(dir, tarball);
  const unpackTo = path.join(work, "unpacked");
  const read = await ZulipExport.open(tarball, unpackTo);
  assert.equal(read.root, path.join(unpackTo, "zulip-export-test"));
  assert.equal(read.version.zulipVersion, "11.0-test");
  assert.equal((await read.all("realm", "zerver_realm", anyRow))[0].name, 'Quote " and ünïcode');
  assert.equal((await read.all("realm", "zerver_stream", anyRow)).length, 2500);
  assert.equal((await read.all("realm", "zerver_huddle", anyRow)).length, 0);
  assert.equal((await read.all("attachment", "zerver_attachment", anyRow)).length, 2);
  const batches = [];
  for await (const b of read.messageBatches()) batches.push(b);
  assert.deepEqual(batches.map((b) => [b.file, b.messages.map((m) => m.id), b.userMessages.length]), [["messages-000001.json", [10, 11], 1], ["messages-000002.json", [12], 0]]);
  const records = await read.records("avatars");
  assert.deepEqual(records.map((r) => [r.path, r.user_profile_id, r.size]), [["3/5.png", 5, 16]]);
  assert.equal(fs.readFileSync(read.storedFile("avatars", "3/5.png"), "utf8"), "not really a png");
});

test("a writer refuses a directory that already holds files", async () => {
  const dir = path.join(work, "taken");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "x"), "");
  await assert.rejects(ZulipExportWriter.create(dir), /not empty/);
});
