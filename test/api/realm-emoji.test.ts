/** Custom emoji: list, upload, deactivate, the served image, events and the register key. */
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import type { TestServer } from "../helpers/server.ts";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { countRows, groupId, setRealmSettings } from "../helpers/db.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { fetchRaw, PNG, postFiles } from "./uploads-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

const NAME_CHARS = "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.";

describeEachStore("custom emoji", { env: { MAX_EMOJI_BYTES: "1000" } }, (server) => {
  type User = TestServer["fixtures"]["member"];
  const add = (user: User | null, name: string, files = [{ name: "e.png", data: PNG, type: "image/png" }]) => postFiles(server, user, `/realm/emoji/${encodeURIComponent(name)}`, files);
  const emoji = async (user: User = server.fixtures.member) => expectSuccess(await server.api.get(user, "/realm/emoji")).emoji as Record<string, Record<string, unknown>>;
  const byName = async (name: string) => Object.values(await emoji()).find((e) => e.name === name && e.deactivated === false);

  test("a member adds an emoji; everyone lists it and loads its image without credentials", async () => {
    const { member, guest } = server.fixtures;
    expectSuccess(await add(member, " party time "));
    const row = await byName("party_time");
    assert.ok(row);
    assert.deepEqual(row, { id: row.id, name: "party_time", source_url: `/user_avatars/${server.fixtures.realmId}/emoji/images/${String(row.id)}.png`, still_url: null, deactivated: false, author_id: member.id });
    assert.deepEqual((await emoji(guest))[String(row.id)], row);
    const image = await fetchRaw(server, null, String(row.source_url));
    assert.equal(image.status, 200);
    assert.equal(image.headers.get("content-type"), "image/png");
    assert.ok(image.data.equals(PNG));
    assert.equal((await fetchRaw(server, null, `/user_avatars/${server.fixtures.realmId}/emoji/images/..%2F..%2Fzuliprc`)).status, 404);
  });

  test("name, permission and file errors write nothing", async () => {
    const { member, guest, admin } = server.fixtures;
    expectSuccess(await add(member, "taken"));
    const rows = await countRows(server, ["realm_emoji"]);
    expectError(await add(guest, "guest_emoji"), "BAD_REQUEST", "Not allowed for guest users");
    expectError(await add(member, "my_EMoji"), "BAD_REQUEST", NAME_CHARS);
    expectError(await add(member, "my_em*oji"), "BAD_REQUEST", NAME_CHARS);
    expectError(await add(member, "trailing_"), "BAD_REQUEST", "Emoji names must end with either a letter or digit.");
    expectError(await add(member, " "), "BAD_REQUEST", "Emoji name is missing");
    expectError(await add(member, "taken"), "BAD_REQUEST", "A custom emoji with this name already exists.");
    expectError(await add(member, "no_file", []), "BAD_REQUEST", "You must upload exactly one file.");
    expectError(await add(member, "two_files", [{ name: "a.png", data: PNG, type: "image/png" }, { name: "b.png", data: PNG, type: "image/png" }]), "BAD_REQUEST", "You must upload exactly one file.");
    expectError(await add(member, "smile"), "BAD_REQUEST", "Only administrators can override default emoji.");
    expectError(await add(member, "too_big", [{ name: "big.png", data: Buffer.concat([PNG, Buffer.alloc(1000)]), type: "image/png" }]), "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 0 MiB");
    expectError(await add(member, "not_image", [{ name: "x.png", data: Buffer.from("<svg/>"), type: "image/png" }]), "BAD_REQUEST", "Invalid image format");
    expectError(await add(null, "anon"), "UNAUTHORIZED", NO_AUTH, 401);
    await setRealmSettings(server, { can_add_custom_emoji_group: await groupId(server, "role:administrators") });
    try {
      expectError(await add(member, "admins_only"), "BAD_REQUEST", "Insufficient permission");
      assert.deepEqual(await countRows(server, ["realm_emoji"]), rows);
      expectSuccess(await add(admin, "admins_only"));
      expectSuccess(await add(admin, "smile"));
    } finally {
      await setRealmSettings(server, { can_add_custom_emoji_group: await groupId(server, "role:members") });
    }
    const emojiDir = `${server.store.dataDir}/uploads/emoji/${server.fixtures.realmId}`;
    assert.equal(fs.readdirSync(emojiDir).length, Object.keys(await emoji()).length);
  });

  test("deactivation: the author or an administrator; the name can then be reused", async () => {
    const { member, moderator, admin } = server.fixtures;
    expectSuccess(await add(member, "short_lived"));
    const first = await byName("short_lived");
    expectError(await server.api.delete(moderator, "/realm/emoji/short_lived"), "BAD_REQUEST", "Must be an organization administrator or emoji author");
    expectError(await server.api.delete(member, "/realm/emoji/no_such"), "BAD_REQUEST", "Emoji 'no_such' does not exist", 404);
    expectError(await server.api.delete(null, "/realm/emoji/short_lived"), "UNAUTHORIZED", NO_AUTH, 401);
    assert.equal((await emoji())[String(first?.id)].deactivated, false);
    expectSuccess(await server.api.delete(member, "/realm/emoji/short_lived"));
    assert.equal((await emoji())[String(first?.id)].deactivated, true);
    expectError(await server.api.delete(member, "/realm/emoji/short_lived"), "BAD_REQUEST", "Emoji 'short_lived' does not exist", 404);
    expectSuccess(await add(moderator, "short_lived"));
    expectSuccess(await server.api.delete(admin, "/realm/emoji/short_lived"));
    assert.equal(Object.values(await emoji()).filter((e) => e.name === "short_lived").length, 2);
  });

  test("register's realm_emoji and realm_emoji events to every user", async () => {
    const { owner, guest } = server.fixtures;
    const queue = await registerQueue(server.api, guest, { event_types: ["realm_emoji"], fetch_event_types: ["realm_emoji"] });
    assert.deepEqual(queue.state.realm_emoji, await emoji());
    const ownerQueue = await registerQueue(server.api, owner, { event_types: ["realm_emoji"] });
    expectSuccess(await add(owner, "evented"));
    const after = await emoji();
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "realm_emoji", op: "update", realm_emoji: after }]);
    expectSuccess(await server.api.delete(owner, "/realm/emoji/evented"));
    const deactivated = await emoji();
    assert.deepEqual(withoutIds(await pollEvents(server.api, queue)), [{ type: "realm_emoji", op: "update", realm_emoji: deactivated }]);
    assert.equal((await pollEvents(server.api, ownerQueue)).length, 2);
  });
});
