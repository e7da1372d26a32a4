/**
 * `npx parley import-zulip` on both stores, with the fixture export of a real upstream Zulip
 * (../shared/fixtures/zulip-export-a/): imported once per store, then every call of the API
 * snapshot taken on Zulip right after the export is made again as the same users (the owner, a
 * member, a guest) and compared with Zulip's answer, within the differences docs/import.md lists
 * (import-zulip-support.ts applies them). Damaged exports are refused and leave the store empty.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { extractTarGz } from "../../src/formats/zulip/tar-extract.ts";
import { runCli, startServerOnStore, type CliResult, type TestServer } from "../helpers/server.ts";
import type { Fixtures } from "../helpers/fixtures.ts";
import { freshStore, type FreshStore } from "../helpers/stores.ts";
import { forEachStore } from "../helpers/suite.ts";
import { expectRefused, importedCredentials, leftovers, NOTHING } from "../helpers/import-store.ts";
import { avatarPaths, callDifferences, FIXTURE_TARBALL, loadSnapshot, type NormalizeContext } from "./import-zulip-support.ts";

/** The export's host: API emails such as user156@lumen.zulip.test and the system bots' addresses follow it. */
const ENV = { EXTERNAL_URL: "https://lumen.zulip.test" };
const snapshot = loadSnapshot();
/** Zulip's cross-realm bots (the Notification Bot, the Welcome Bot, the email gateway), Parley's system bots after the import. */
const SYSTEM_BOT_IDS = new Set([1, 6, 7]);

/** The imported users' new API keys, by id. */
async function apiKeys(store: FreshStore): Promise<Map<number, string>> {
  return new Map((await importedCredentials(store)).map((u) => [u.id, u.apiKey]));
}

forEachStore("import-zulip: the fixture export against Zulip's own answers", (kind) => {
  let store: FreshStore;
  let server: TestServer | undefined;
  let imported: CliResult;
  let keys: Map<number, string>;
  let unpacked: string;
  let ctx: NormalizeContext;

  before(async () => {
    unpacked = fs.mkdtempSync(path.join(os.tmpdir(), "parley-zexport-"));
    await extractTarGz(FIXTURE_TARBALL, unpacked);
    ctx = { systemBotIds: SYSTEM_BOT_IDS, avatarPaths: avatarPaths(path.join(unpacked, "zexport-A")) };
    store = await freshStore(kind);
    imported = await runCli(store, ["import-zulip", FIXTURE_TARBALL], { env: ENV });
    assert.equal(imported.code, 0, imported.stderr);
    keys = await apiKeys(store);
    // The import made the store's organization: the server starts on it as on any store.
    server = await startServerOnStore(store, {} as Fixtures, ENV);
  });
  after(async () => {
    fs.rmSync(unpacked, { recursive: true, force: true });
    if (server) await server.stop();
    else await store?.drop();
  });

  test("the command reports progress, what came across and what to do next", () => {
    assert.match(imported.stderr, /import-zulip: reading a Zulip 10\.0-dev\+git export \(zerver migration 629\), 1 message files/);
    assert.match(imported.stderr, /import-zulip: messages: messages-000001\.json \(1\/1\), 508 so far/);
    assert.match(imported.stdout, /^Imported "Lumen Robotics" \(organization 13, from Zulip 10\.0-dev\+git\)/);
    for (const line of ["  messages: 508", "  reactions: 178", "  uploads: 5", "  channels: 9", "  users: 12", "  bots: 3", "  custom emoji: 4", "  scheduled messages: 3"]) {
      assert.ok(imported.stdout.includes(line), `summary lacks ${JSON.stringify(line)}:\n${imported.stdout}`);
    }
    assert.match(imported.stdout, /People arrive without passwords/);
    assert.match(imported.stdout, /npx parley api-key --email/);
  });

  for (const [email, user] of Object.entries(snapshot._meta.users)) {
    test(`${user.key} (${user.role}): every snapshot call answers as it did on Zulip`, async () => {
      const creds = { email, apiKey: keys.get(user.user_id) ?? "" };
      assert.deepEqual(await callDifferences(server!.api, creds, snapshot[email], ctx), []);
    });
  }

  test("the organization's settings come across, legacy policies as the groups Zulip 11 made of them", async () => {
    const ada = { email: "ada.okafor@lumenrobotics.example", apiKey: keys.get(147) ?? "" };
    const body = (await server!.api.post(ada, "/register", { fetch_event_types: JSON.stringify(["realm"]) })).body as Record<string, unknown>;
    const realm = (JSON.parse(fs.readFileSync(path.join(unpacked, "zexport-A/realm.json"), "utf8")) as { zerver_realm: Array<Record<string, unknown>> }).zerver_realm[0];
    const sameName = [
      "name", "message_content_edit_limit_seconds", "message_content_delete_limit_seconds", "enable_spectator_access", "default_code_block_language",
      "enable_read_receipts", "invite_required", "move_messages_within_stream_limit_seconds", "can_create_public_channel_group", "can_move_messages_between_channels_group",
      "can_delete_any_message_group", "can_access_all_users_group", "direct_message_permission_group", "create_multiuse_invite_group",
    ];
    for (const key of sameName) assert.deepEqual(body[`realm_${key}`], realm[key], key);
    assert.equal(body.realm_new_stream_announcements_stream_id, realm.new_stream_announcements_stream);
    // invite_to_stream_policy 1 (members), wildcard_mention_policy 5 (administrators), bot_creation_policy 1 (everyone but guests).
    assert.deepEqual([body.realm_can_add_subscribers_group, body.realm_can_mention_many_users_group, body.realm_can_create_bots_group], [216, 213, 216]);
  });

  test("uploads, upstream's thumbnail URLs, custom emoji and avatars are served", async () => {
    const ada = { email: "ada.okafor@lumenrobotics.example", apiKey: keys.get(147) ?? "" };
    const jonas = { email: "jonas.weber@contractor.example", apiKey: keys.get(156) ?? "" };
    const root = path.join(unpacked, "zexport-A");
    const get = (url: string, creds: { email: string; apiKey: string } | null) =>
      fetch(`${server!.url}${url}`, { headers: creds ? { authorization: `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString("base64")}` } : {} });
    const expectImage = async (url: string, creds: { email: string; apiKey: string } | null, file: string) => {
      const res = await get(url, creds);
      assert.equal(res.status, 200, url);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), fs.readFileSync(path.join(root, file)), url);
    };
    const pathId = "13/ad/6Tb9laJPLB2VFNouyHQNllBc/pointcloud-frame-0412.png";
    await expectImage(`/user_uploads/${pathId}`, ada, `uploads/${pathId}`);
    await expectImage(`/user_uploads/thumbnail/${pathId}/840x560.webp`, ada, `uploads/${pathId}`);
    // The PDF of the private hardware-lab channel: the guest, not subscribed, may not read it.
    assert.equal((await get("/user_uploads/13/a7/0bS1-nct5jG8E744GEPL0OWP/battery-safety-checklist.pdf", jonas)).status, 403);
    await expectImage("/user_avatars/13/emoji/images/fab817e7.png", null, "emoji/13/emoji/images/fab817e7.png");
    // Bruno's avatar, where GET /users/148 says it is.
    const bruno = (await server!.api.get(ada, "/users/148")).body.user as { avatar_url: string };
    await expectImage(bruno.avatar_url, null, "avatars/13/5ee51c32ff958fbf913086a69caa8ebfecc0e3e9.png");
  });

  test("the organization goes on: new rows get ids after the imported ones, and known conversations are reused", async () => {
    const ada = { email: "ada.okafor@lumenrobotics.example", apiKey: keys.get(147) ?? "" };
    const sent = (await server!.api.post(ada, "/messages", { type: "stream", to: "general", topic: "after the import", content: "Hello from Parley" })).body as { id: number };
    assert.ok(sent.id > 1970, `message id ${sent.id}`);
    const direct = (await server!.api.post(ada, "/messages", { type: "direct", to: JSON.stringify([148]), content: "still here?" })).body as { id: number };
    const dms = (await server!.api.get(ada, "/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: "dm", operand: [148] }]) })).body.messages as Array<{ id: number; recipient_id: number }>;
    assert.equal(dms[dms.length - 1].id, direct.id);
    assert.equal(new Set(dms.map((m) => m.recipient_id)).size, 1, "the imported 1:1 conversation is the one the new message joins");
    await server!.api.post(ada, "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "after-import" }]) });
    const streamId = ((await server!.api.get(ada, "/get_stream_id", { stream: "after-import" })).body as { stream_id: number }).stream_id;
    assert.ok(streamId > 71, `channel id ${streamId}`);
    const group = (await server!.api.post(ada, "/user_groups/create", { name: "after-import", description: "new", members: JSON.stringify([147]) })).body as { group_id: number };
    assert.ok(group.group_id > 232, `group id ${group.group_id}`);
  });

  test("a second import is refused: the store already holds an organization", async () => {
    const res = await runCli(store, ["import-zulip", FIXTURE_TARBALL], { env: ENV });
    expectRefused(res, 'the store already holds the organization "Lumen Robotics"');
  });
});

forEachStore("import-zulip: a damaged export is refused and the store stays empty", (kind) => {
  let store: FreshStore;
  let unpacked: string;
  /** A copy of the fixture's unpacked export, changed by `damage`. */
  const damagedCopy = (name: string, damage: (root: string) => void): string => {
    const copy = path.join(path.dirname(unpacked), name);
    fs.cpSync(unpacked, copy, { recursive: true });
    damage(path.join(copy, "zexport-A"));
    return copy;
  };

  /** Imports `source`, expecting the refusal `message`, and checks that nothing was written. */
  const refusedAndEmpty = async (source: string, message: string) => {
    expectRefused(await runCli(store, ["import-zulip", source], { env: ENV }), message);
    assert.deepEqual(await leftovers(store), NOTHING);
  };

  before(async () => {
    store = await freshStore(kind);
    unpacked = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "parley-zdamaged-")), "fixture");
    await extractTarGz(FIXTURE_TARBALL, unpacked);
  });
  after(async () => {
    fs.rmSync(path.dirname(unpacked), { recursive: true, force: true });
    await store?.drop();
  });

  test("a truncated tarball", async () => {
    const cut = path.join(path.dirname(unpacked), "truncated.tar.gz");
    const whole = fs.readFileSync(FIXTURE_TARBALL);
    fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    await refusedAndEmpty(cut, "truncated.tar.gz is not a whole gzip file (truncated or damaged");
  });

  test("a missing messages file", async () => {
    const copy = damagedCopy("no-messages", (root) => fs.rmSync(path.join(root, "messages-000001.json")));
    await refusedAndEmpty(copy, "messages-000001.json is missing from the export (stats.json lists it)");
  });

  test("a message naming a user the export does not hold", async () => {
    const copy = damagedCopy("unknown-sender", (root) => {
      const file = path.join(root, "messages-000001.json");
      const data = JSON.parse(fs.readFileSync(file, "utf8"));
      data.zerver_message[200].sender = 4242;
      fs.writeFileSync(file, JSON.stringify(data));
    });
    await refusedAndEmpty(copy, "names sender 4242, who is not in the export");
  });

  test("a custom emoji without its image, found after the uploads were copied: they are removed again", async () => {
    const copy = damagedCopy("no-emoji-image", (root) => fs.rmSync(path.join(root, "emoji/13/emoji/images/fab817e7.png")));
    await refusedAndEmpty(copy, "emoji/13/emoji/images/fab817e7.png is missing from the export");
  });
});

describe("import-zulip: usage", () => {
  test("the export's path is required", async () => {
    const store = await freshStore("sqlite");
    try {
      const res = await runCli(store, ["import-zulip"]);
      assert.equal(res.code, 2);
      assert.match(res.stderr, /usage: parley import-zulip EXPORT\.tar\.gz\|EXPORT_DIR/);
    } finally {
      await store.drop();
    }
  });
});
