/**
 * Phone notifications of messages, through the stand-in relay (test/helpers/push-relay.ts), the
 * test playing the phones: legacy FCM and APNs tokens and an E2EE registration whose key pair
 * the test holds. Who is notified and why (direct messages, mentions, group and wildcard
 * mentions, channel push settings; not the sender, not a muted sender, not someone at their
 * desk with online push off), the payloads field by field (the E2EE one decrypted), removals
 * when messages are read or deleted, and a relay that is down never slowing a send.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pg from "pg";
import sodium from "libsodium-wrappers";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { registerQueue } from "../helpers/events.ts";
import { pushWorkSettled, startStandInRelay, type StandInRelay } from "../helpers/push-relay.ts";
import { startServerOnStore } from "../helpers/server.ts";
import { forEachStore, useServer } from "../helpers/suite.ts";
import { sendMessage } from "../helpers/factories.ts";

const APNS_TOKEN = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

/** A phone with its own key pair, registered for E2EE; opens what the relay delivered to it. */
function e2eePhone(relayKey: string, token: string) {
  const keys = sodium.crypto_box_keypair();
  const b64 = (bytes: Uint8Array) => sodium.to_base64(bytes, sodium.base64_variants.ORIGINAL);
  const registration = { token, token_kind: "fcm", timestamp: Math.floor(Date.now() / 1000) };
  const sealed = sodium.crypto_box_seal(sodium.from_string(JSON.stringify(registration)), sodium.from_base64(relayKey, sodium.base64_variants.ORIGINAL));
  return {
    params: { token_kind: "fcm", push_account_id: 7001, push_public_key: b64(keys.publicKey), bouncer_public_key: relayKey, encrypted_push_registration: b64(sealed) },
    open: (encrypted: string) => JSON.parse(sodium.to_string(sodium.crypto_box_seal_open(sodium.from_base64(encrypted, sodium.base64_variants.ORIGINAL), keys.publicKey, keys.privateKey))) as Record<string, unknown>,
  };
}

forEachStore("push notifications of messages", (store) => {
  let relay: StandInRelay;
  let phone: ReturnType<typeof e2eePhone>;
  let uuids: { member: string; realm: string };
  let channelId: number;
  before(async () => {
    await sodium.ready;
    relay = await startStandInRelay();
  });
  const server = useServer(store, () => ({ ...relay.env(), PUSH_RELAY_RETRY_BASE_MS: "50" }));
  before(async () => {
    const { owner, admin, member, moderator } = server.fixtures;
    // The member's phones: an Android and an iPhone on the plain protocol, and an E2EE one.
    expectSuccess(await server.api.post(member, "/users/me/android_gcm_reg_id", { token: "fcm:member" }));
    expectSuccess(await server.api.post(member, "/users/me/apns_device_token", { token: APNS_TOKEN, appid: "org.zulip.Zulip" }));
    phone = e2eePhone(relay.publicKey, "fcm:member-e2ee");
    expectSuccess(await server.api.post(member, "/mobile_push/register", phone.params, { validate: false }));
    // The moderator has a phone too (for group mentions and the sender's side).
    expectSuccess(await server.api.post(moderator, "/users/me/android_gcm_reg_id", { token: "fcm:moderator" }));
    const principals = [owner.id, admin.id, moderator.id, member.id];
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "ops" }], principals }));
    channelId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "ops" })).stream_id;
    await pushWorkSettled(server);
    uuids = await withDb(server, async (db) => ({
      member: (await db.selectFrom("users").select("uuid").where("id", "=", member.id).executeTakeFirstOrThrow()).uuid as string,
      realm: (await db.selectFrom("realms").select("uuid").where("id", "=", server.fixtures.realmId).executeTakeFirstOrThrow()).uuid as string,
    }));
  });
  after(async () => {
    await relay?.close();
  });

  /** Everything the relay delivered from here on, once the work a step caused is done. */
  async function delivered(step: () => Promise<void>) {
    const legacy = relay.legacyOutbox.length;
    const e2ee = relay.outbox.length;
    await step();
    await pushWorkSettled(server);
    return { legacy: relay.legacyOutbox.slice(legacy), e2ee: relay.outbox.slice(e2ee).map((o) => ({ ...o, opened: phone.open(String((o.request.payload as Record<string, unknown>).encrypted_data)) })) };
  }
  const toOps = (from: Credentials, topic: string, content: string) => sendMessage(server, from, { type: "stream", to: "ops", topic, content });

  test("a direct message reaches every phone of the addressee: the legacy FCM and APNs payloads and the E2EE one, field by field", async () => {
    const { owner, member, realmId } = server.fixtures;
    let id = 0;
    const got = await delivered(async () => {
      id = await sendMessage(server, owner, { type: "private", to: JSON.stringify([member.id]), content: "Lunch at **noon**?" });
    });
    const message = expectSuccess(await server.api.get(member, `/messages/${id}`)).message;
    const avatar = expectSuccess(await server.api.get(member, `/users/${owner.id}`, { client_gravatar: false })).user.avatar_url;
    const host = new URL(server.url).host;
    const base = { server: host, realm_id: realmId, realm_name: "Test Org", realm_uri: server.url, realm_url: server.url, user_id: member.id };
    const sender = { sender_id: owner.id, sender_email: message.sender_email, time: message.timestamp };
    const fcm = got.legacy.find((d) => d.kind === "fcm");
    assert.deepEqual(fcm, {
      user_uuid: uuids.member,
      kind: "fcm",
      token: "fcm:member",
      priority: "high",
      payload: {
        ...base,
        ...sender,
        recipient_type: "private",
        event: "message",
        zulip_message_id: id,
        content: "Lunch at noon?",
        content_truncated: false,
        sender_full_name: owner.fullName,
        sender_avatar_url: avatar,
      },
    });
    const apns = got.legacy.find((d) => d.kind === "apns");
    assert.deepEqual(apns?.payload, {
      alert: { title: owner.fullName, subtitle: "", body: "Lunch at noon?" },
      sound: "default",
      badge: 0,
      custom: { zulip: { ...base, ...sender, recipient_type: "private", message_ids: [id] } },
    });
    assert.equal(got.e2ee.length, 1);
    assert.equal(got.e2ee[0].request.fcm_priority, "high");
    assert.deepEqual(got.e2ee[0].opened, {
      realm_url: server.url,
      realm_name: "Test Org",
      user_id: member.id,
      sender_id: owner.id,
      type: "message",
      message_id: id,
      time: message.timestamp,
      content: "Lunch at noon?",
      sender_full_name: owner.fullName,
      sender_avatar_url: avatar,
      recipient_type: "direct",
    });
    assert.equal(await withDb(server, async (db) => (await db.selectFrom("push_active_notifications").selectAll().where("message_id", "=", id).execute()).length), 1);
  });

  test("a group direct message lists its people; long content is cut at 200 characters", async () => {
    const { owner, member, moderator } = server.fixtures;
    const long = "word ".repeat(60).trim();
    const got = await delivered(async () => {
      await sendMessage(server, owner, { type: "private", to: JSON.stringify([member.id, moderator.id]), content: long });
    });
    const fcm = got.legacy.find((d) => d.token === "fcm:member")?.payload;
    assert.equal(fcm?.pm_users, [owner.id, moderator.id, member.id].sort((a, b) => a - b).join(","));
    assert.equal(fcm?.content, `${long.slice(0, 200)}…`);
    assert.equal(fcm?.content_truncated, true);
    const apns = got.legacy.find((d) => d.kind === "apns")?.payload as { alert: Record<string, string> };
    assert.equal(apns.alert.title, [owner.fullName, member.fullName, moderator.fullName].sort().join(", "));
    assert.equal(apns.alert.subtitle, `${owner.fullName}:`);
    assert.equal(got.e2ee[0].opened.pm_users, fcm?.pm_users);
    // The moderator's phone too; never the sender's.
    assert.ok(got.legacy.some((d) => d.token === "fcm:moderator"));
  });

  test("channel messages: a mention notifies, plain traffic does not until channel push is on", async () => {
    const { owner, member } = server.fixtures;
    const quiet = await delivered(async () => {
      await toOps(owner, "standup", "nothing for phones");
    });
    assert.deepEqual(quiet, { legacy: [], e2ee: [] });
    let id = 0;
    const mentioned = await delivered(async () => {
      id = await toOps(owner, "standup", `@**${member.fullName}** can you look?`);
    });
    const apns = mentioned.legacy.find((d) => d.kind === "apns")?.payload as { alert: Record<string, string>; custom: { zulip: Record<string, unknown> } };
    assert.deepEqual(apns.alert, { title: "#ops > standup", subtitle: `${owner.fullName} mentioned you:`, body: `@${member.fullName} can you look?` });
    assert.deepEqual(
      { recipient_type: apns.custom.zulip.recipient_type, stream: apns.custom.zulip.stream, stream_id: apns.custom.zulip.stream_id, topic: apns.custom.zulip.topic },
      { recipient_type: "stream", stream: "ops", stream_id: channelId, topic: "standup" },
    );
    const opened = mentioned.e2ee[0].opened;
    assert.deepEqual(
      { recipient_type: opened.recipient_type, channel_id: opened.channel_id, channel_name: opened.channel_name, topic: opened.topic, message_id: opened.message_id },
      { recipient_type: "channel", channel_id: channelId, channel_name: "ops", topic: "standup", message_id: id },
    );
    // Channel push on for this channel: every message of it notifies.
    expectSuccess(await server.api.post(member, "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: channelId, property: "push_notifications", value: true }] }));
    const loud = await delivered(async () => {
      await toOps(owner, "standup", "now phones hear this");
    });
    assert.equal(loud.legacy.find((d) => d.kind === "apns")?.payload.alert && (loud.legacy.find((d) => d.kind === "apns")?.payload.alert as Record<string, string>).subtitle, `${owner.fullName}:`);
    // A muted topic silences it again.
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: channelId, topic: "chatter", visibility_policy: 1 }));
    assert.deepEqual(await delivered(async () => void (await toOps(owner, "chatter", "muted topic"))), { legacy: [], e2ee: [] });
    expectSuccess(await server.api.post(member, "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: channelId, property: "push_notifications", value: false }] }));
  });

  test("decided as of the send: a message sent before a mention in its topic is not pushed, though the mention makes its reader follow the topic", async () => {
    const { owner, member } = server.fixtures;
    // On PostgreSQL the worker is held until both are sent: deciding reads presence, which a
    // lock of this test's keeps it from, so the mention's follow has happened by then.
    const hold = server.store.databaseUrl ? new pg.Client({ connectionString: server.store.databaseUrl }) : null;
    let plain = 0;
    let mention = 0;
    const got = await delivered(async () => {
      if (hold) {
        await hold.connect();
        await hold.query("begin");
        await hold.query("lock table user_presence in access exclusive mode");
      }
      try {
        plain = await toOps(owner, "decided at send", "a plain message, before anyone is mentioned");
        mention = await toOps(owner, "decided at send", `@**${member.fullName}** now you are`);
      } finally {
        await hold?.query("commit");
        await hold?.end();
      }
    });
    const policy = await withDb(server, (db) => db.selectFrom("user_topics").select("visibility_policy").where("user_id", "=", member.id).where("topic", "=", "decided at send").executeTakeFirst());
    assert.equal(policy?.visibility_policy, 3, "the mention made the member follow the topic");
    assert.deepEqual(got.e2ee.map((o) => [o.opened.message_id, o.opened.type]), [[mention, "message"]]);
    const ids = got.legacy.filter((d) => d.user_uuid === uuids.member).map((d) => d.payload.zulip_message_id ?? (d.payload.custom as { zulip: { message_ids: number[] } }).zulip.message_ids[0]);
    assert.deepEqual(ids, [mention, mention]);
    assert.ok(!ids.includes(plain));
    // The next plain message of the topic is pushed: the member follows it now.
    const followed = await delivered(async () => void (await toOps(owner, "decided at send", "after the follow")));
    assert.equal((followed.legacy.find((d) => d.kind === "apns")?.payload.alert as Record<string, string>).subtitle, `${owner.fullName}:`);
  });

  test("a job queued before sends recorded their facts (a message id only) is decided on the state when it runs", async () => {
    const { owner, member, realmId } = server.fixtures;
    let id = 0;
    await delivered(async () => {
      id = await sendMessage(server, owner, { type: "private", to: JSON.stringify([member.id]), content: "sent before an upgrade" });
    });
    // As an older version left it: no notification shown yet, the job holding only the message id.
    await withDb(server, async (db) => {
      await db.deleteFrom("push_active_notifications").where("message_id", "=", id).execute();
      await db.insertInto("push_relay_jobs").values({ realm_id: realmId, user_id: null, call: "message", fields: JSON.stringify({ message_id: id }), due_at_ms: Date.now() }).execute();
    });
    const got = await delivered(async () => {
      // Any queued relay call wakes the worker, which then takes every due job.
      expectSuccess(await server.api.post(owner, "/users/me/android_gcm_reg_id", { token: "fcm:owner-wake" }));
    });
    assert.deepEqual(got.e2ee.map((o) => [o.opened.message_id, o.opened.type]), [[id, "message"]]);
  });

  test("group and wildcard mentions: the group is named; wildcards follow the user's setting", async () => {
    const { owner, member, moderator } = server.fixtures;
    const group = expectSuccess(await server.api.post(owner, "/user_groups/create", { name: "oncall", description: "pager", members: JSON.stringify([member.id, moderator.id]) }));
    const groupId = group.group_id as number;
    const byGroup = await delivered(async () => void (await toOps(owner, "pager", "@*oncall* the site is down")));
    const fcm = byGroup.legacy.find((d) => d.token === "fcm:member")?.payload;
    assert.deepEqual({ id: fcm?.mentioned_user_group_id, name: fcm?.mentioned_user_group_name }, { id: groupId, name: "oncall" });
    assert.equal((byGroup.legacy.find((d) => d.kind === "apns")?.payload.alert as Record<string, string>).subtitle, `${owner.fullName} mentioned @oncall:`);
    assert.equal(byGroup.e2ee[0].opened.mentioned_user_group_name, "oncall");
    // A fresh topic: the member follows "pager" now (mentioned there), and followed topics have their own wildcard setting.
    const wildcard = await delivered(async () => void (await toOps(owner, "all hands", "@**all** meeting now")));
    assert.equal((wildcard.legacy.find((d) => d.kind === "apns")?.payload.alert as Record<string, string>).subtitle, `${owner.fullName} mentioned everyone:`);
    expectSuccess(await server.api.patch(member, "/settings", { wildcard_mentions_notify: false }));
    const quiet = await delivered(async () => void (await toOps(owner, "all hands 2", "@**all** another meeting")));
    assert.equal(quiet.legacy.filter((d) => d.user_uuid === uuids.member).length, 0);
    expectSuccess(await server.api.patch(member, "/settings", { wildcard_mentions_notify: true }));
  });

  test("nobody is notified of what they muted, nor while at their desk with online push off", async () => {
    const { owner, admin, member } = server.fixtures;
    expectSuccess(await server.api.post(member, `/users/me/muted_users/${admin.id}`));
    assert.deepEqual(await delivered(async () => void (await sendMessage(server, admin, { type: "private", to: JSON.stringify([member.id]), content: "muted" }))), { legacy: [], e2ee: [] });
    expectSuccess(await server.api.delete(member, `/users/me/muted_users/${admin.id}`));
    // At the desk: an open event queue and a fresh "active" presence.
    const queue = await registerQueue(server.api, member, { event_types: ["message"] });
    expectSuccess(await server.api.post(member, "/users/me/presence", { status: "active" }));
    expectSuccess(await server.api.patch(member, "/settings", { enable_online_push_notifications: false }));
    assert.deepEqual(await delivered(async () => void (await sendMessage(server, owner, { type: "private", to: JSON.stringify([member.id]), content: "at desk" }))), { legacy: [], e2ee: [] });
    // Online push on (the default): the phones hear it even at the desk.
    expectSuccess(await server.api.patch(member, "/settings", { enable_online_push_notifications: true }));
    const heard = await delivered(async () => void (await sendMessage(server, owner, { type: "private", to: JSON.stringify([member.id]), content: "at desk, loud" })));
    assert.equal(heard.e2ee.length, 1);
    expectSuccess(await server.api.delete(member, "/events", { queue_id: queue.queueId }));
  });

  test("reading a message takes its notification back from every phone; so does deleting it", async () => {
    const { owner, member } = server.fixtures;
    const dm = (content: string) => sendMessage(server, owner, { type: "private", to: JSON.stringify([member.id]), content });
    const ids: number[] = [];
    await delivered(async () => {
      ids.push(await dm("first"), await dm("second"));
    });
    const read = await delivered(async () => void expectSuccess(await server.api.post(member, "/messages/flags", { messages: JSON.stringify(ids), op: "add", flag: "read" })));
    const host = new URL(server.url).host;
    const removal = { server: host, realm_id: server.fixtures.realmId, realm_name: "Test Org", realm_uri: server.url, realm_url: server.url, user_id: member.id, event: "remove", zulip_message_ids: ids.join(",") };
    assert.deepEqual(read.legacy.find((d) => d.kind === "fcm"), { user_uuid: uuids.member, kind: "fcm", token: "fcm:member", priority: "normal", payload: removal });
    assert.deepEqual(read.legacy.find((d) => d.kind === "apns")?.payload, { badge: 0, custom: { zulip: removal } });
    assert.equal(read.e2ee[0].request.fcm_priority, "normal");
    assert.deepEqual(read.e2ee[0].opened, { realm_url: server.url, realm_name: "Test Org", user_id: member.id, type: "remove", message_ids: ids });
    // Read again: nothing left to take back.
    assert.deepEqual(await delivered(async () => void expectSuccess(await server.api.post(member, "/messages/flags", { messages: JSON.stringify(ids), op: "add", flag: "read" }))), { legacy: [], e2ee: [] });
    // A message deleted before it was read.
    let doomed = 0;
    await delivered(async () => {
      doomed = await dm("soon gone");
    });
    const deleted = await delivered(async () => void expectSuccess(await server.api.delete(owner, `/messages/${doomed}`)));
    assert.deepEqual(deleted.e2ee[0].opened.message_ids, [doomed]);
    // Marking everything read takes back whatever is left.
    let last = 0;
    await delivered(async () => {
      last = await dm("unread until mark-all");
    });
    const all = await delivered(async () => void expectSuccess(await server.api.post(member, "/mark_all_as_read", {})));
    // Every notification still shown goes, the earlier tests' unread ones too.
    assert.ok((all.e2ee[0].opened.message_ids as number[]).includes(last));
    const left = await withDb(server, (db) => db.selectFrom("push_active_notifications").select("message_id").where("user_id", "=", member.id).execute());
    assert.deepEqual(left, []);
  });

  test("an edit that takes a mention away takes its notification back; one that adds it notifies", async () => {
    const { owner, member } = server.fixtures;
    let id = 0;
    const sent = await delivered(async () => {
      id = await toOps(owner, "edits", `@**${member.fullName}** ping`);
    });
    assert.equal(sent.e2ee[0].opened.message_id, id);
    const edited = await delivered(async () => void expectSuccess(await server.api.patch(owner, `/messages/${id}`, { content: "ping, never mind" })));
    assert.deepEqual(edited.e2ee[0].opened.message_ids, [id]);
    assert.equal(edited.legacy.find((d) => d.kind === "fcm")?.payload.zulip_message_ids, String(id));
    // Mentioned again by a later edit: notified again, with the new text; an edit that changes nothing for them, not again.
    const again = await delivered(async () => void expectSuccess(await server.api.patch(owner, `/messages/${id}`, { content: `@**${member.fullName}** ping, for real` })));
    assert.deepEqual({ type: again.e2ee[0]?.opened.type, id: again.e2ee[0]?.opened.message_id, content: again.e2ee[0]?.opened.content }, { type: "message", id, content: `@${member.fullName} ping, for real` });
    const same = await delivered(async () => void expectSuccess(await server.api.patch(owner, `/messages/${id}`, { content: `@**${member.fullName}** ping, for real!` })));
    assert.deepEqual(same, { legacy: [], e2ee: [] });
  });

  test("a relay that refuses a notification (organization not registered) is not asked again", async () => {
    const { owner, member } = server.fixtures;
    relay.knownRealms = new Set();
    const calls = relay.calls.length;
    try {
      const got = await delivered(async () => void (await sendMessage(server, owner, { type: "private", to: JSON.stringify([member.id]), content: "refused" })));
      assert.deepEqual(got, { legacy: [], e2ee: [] });
    } finally {
      relay.knownRealms = null;
    }
    // One notify and one e2ee/notify, each refused once and dropped.
    assert.deepEqual(relay.calls.slice(calls).map((c) => c.endpoint).sort(), ["push/e2ee/notify", "push/notify"]);
  });

  test("a relay that is down does not hold up sending; notifications arrive once it is back, and gone phones are forgotten", async () => {
    const { owner, member } = server.fixtures;
    relay.fault = { kind: "drop" };
    const calls = relay.calls.length;
    let id = 0;
    try {
      id = await sendMessage(server, owner, { type: "private", to: JSON.stringify([member.id]), content: "while the relay is down" });
      await relay.waitForCalls(calls + 1);
    } finally {
      relay.fault = { kind: "none" };
    }
    relay.goneTokens.add(APNS_TOKEN);
    await pushWorkSettled(server);
    assert.ok(relay.outbox.some((o) => phone.open(String((o.request.payload as Record<string, unknown>).encrypted_data)).message_id === id));
    assert.ok(relay.legacyOutbox.some((d) => d.token === "fcm:member" && d.payload.zulip_message_id === id));
    const tokens = await withDb(server, (db) => db.selectFrom("push_device_tokens").select("token").where("user_id", "=", member.id).orderBy("id").execute());
    assert.deepEqual(
      tokens.map((t) => t.token),
      ["fcm:member"],
    );
  });

  test("notification work waiting when the server stops is sent by the next one (last: it restarts the server)", async () => {
    const { owner, member } = server.fixtures;
    relay.fault = { kind: "drop" };
    const calls = relay.calls.length;
    let id = 0;
    try {
      id = await sendMessage(server, owner, { type: "private", to: JSON.stringify([member.id]), content: "across a restart" });
      await relay.waitForCalls(calls + 1);
      await server.stopProcess();
    } finally {
      relay.fault = { kind: "none" };
    }
    const pending = await withDb(server, (db) => db.selectFrom("push_relay_jobs").select("call").execute());
    assert.ok(pending.length > 0, "the unsent calls wait in the database");
    server.replace(await startServerOnStore(server.store, server.fixtures, { ...relay.env(), PUSH_RELAY_RETRY_BASE_MS: "50" }));
    await pushWorkSettled(server);
    assert.ok(relay.outbox.some((o) => phone.open(String((o.request.payload as Record<string, unknown>).encrypted_data)).message_id === id));
  });
});
