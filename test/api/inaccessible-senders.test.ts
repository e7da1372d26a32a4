/**
 * Senders a guest may not access (can_access_all_users_group = role:members, and no channel or
 * direct conversation shared with them): the guest sees "Unknown user", the dummy address and the
 * unknown-user avatar in message events, GET /messages (searches too), GET /messages/{id} and
 * phone notifications, as Zulip shows them; everyone else, and the guest once a direct message
 * makes the sender accessible, sees the sender.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { groupId } from "../helpers/db.ts";
import { pollEvents, registerQueue } from "../helpers/events.ts";
import { pushWorkSettled, startStandInRelay, type StandInRelay } from "../helpers/push-relay.ts";
import { createUser, type Account } from "../helpers/factories.ts";
import { forEachStore, useServer } from "../helpers/suite.ts";

type Message = Record<string, unknown> & { id: number; sender_id: number };

forEachStore("senders a guest may not access", (store) => {
  let relay: StandInRelay;
  let host: string;
  let unknownAvatar: string;
  before(async () => {
    relay = await startStandInRelay();
  });
  const server = useServer(store, () => ({ ...relay.env(), PUSH_RELAY_RETRY_BASE_MS: "50" }));
  before(async () => {
    const { owner, guest } = server.fixtures;
    host = new URL(server.url).hostname;
    unknownAvatar = `${server.url}/static/images/unknown-user-avatar.png`;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "backroom" }], principals: [owner.id, guest.id] }));
    await restrictGuests(true);
  });
  after(async () => {
    await relay?.close();
  });

  /** Limits guests to the users they share something with (role:members), or lifts it (role:everyone). */
  async function restrictGuests(on: boolean): Promise<void> {
    const group = await groupId(server, on ? "role:members" : "role:everyone");
    expectSuccess(await server.api.patch(server.fixtures.owner, "/realm", { can_access_all_users_group: JSON.stringify({ new: group }) }));
  }
  /** A member who shares no channel and no direct conversation with the guest. */
  const stranger = (name: string): Promise<Account> => createUser(server, { name });
  const toBackroom = async (from: Credentials, content: string): Promise<number> =>
    expectSuccess(await server.api.post(from, "/messages", { type: "stream", to: "backroom", topic: "visitors", content })).id as number;
  const readOne = async (user: Credentials, id: number, params: Record<string, unknown> = {}): Promise<Message> => expectSuccess(await server.api.get(user, `/messages/${id}`, params)).message;
  const narrowed = async (user: Credentials, narrow: unknown[], params: Record<string, unknown> = {}): Promise<Message[]> =>
    expectSuccess(await server.api.get(user, "/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: JSON.stringify(narrow), ...params })).messages;
  const unknownSender = (id: number) => ({ sender_full_name: "Unknown user", sender_email: `user${id}@${host}`, avatar_url: unknownAvatar });
  const senderFields = (m: Message) => ({ sender_full_name: m.sender_full_name, sender_email: m.sender_email, avatar_url: m.avatar_url });

  test("a channel message from an inaccessible sender shows Unknown user to the guest, in events and every read", async () => {
    const { owner, guest } = server.fixtures;
    const stella = await stranger("Stella Stranger");
    const guestQueue = await registerQueue(server.api, guest, { event_types: JSON.stringify(["message"]), client_gravatar: "true", apply_markdown: "false" });
    const ownerQueue = await registerQueue(server.api, owner, { event_types: JSON.stringify(["message"]) });
    const id = await toBackroom(stella, "knock knock");

    const [guestEvent] = await pollEvents(server.api, guestQueue);
    const seen = (guestEvent as { message: Message }).message;
    // Ids, content and the channel stay; only the name, address and avatar are replaced.
    assert.deepEqual({ ...senderFields(seen), sender_id: seen.sender_id, content: seen.content, display_recipient: seen.display_recipient }, {
      ...unknownSender(stella.id),
      sender_id: stella.id,
      content: "knock knock",
      display_recipient: "backroom",
    });
    const [ownerEvent] = await pollEvents(server.api, ownerQueue);
    const real = (ownerEvent as { message: Message }).message;
    assert.equal(real.sender_full_name, "Stella Stranger");
    assert.equal(real.sender_email, stella.email);
    assert.notEqual(real.avatar_url, unknownAvatar);

    // GET /messages (with or without client_gravatar), a search, GET /messages/{id}: the same placeholder.
    for (const params of [{}, { client_gravatar: "true" }]) {
      const page = await narrowed(guest, [{ operator: "channel", operand: "backroom" }], params);
      assert.deepEqual(senderFields(page.find((m) => m.id === id) as Message), unknownSender(stella.id));
    }
    const found = await narrowed(guest, [{ operator: "search", operand: "knock" }]);
    assert.deepEqual(found.map((m) => [m.id, m.sender_full_name]), [[id, "Unknown user"]]);
    assert.deepEqual(senderFields(await readOne(guest, id)), unknownSender(stella.id));
    // The guest's own list of users has the same placeholder for the sender.
    const listed = expectSuccess(await server.api.get(guest, "/users", { client_gravatar: "false" })).members.find((u: { user_id: number }) => u.user_id === stella.id);
    assert.deepEqual([listed.full_name, listed.avatar_url], ["Unknown user", unknownAvatar]);
    // Others see the sender.
    assert.equal((await readOne(owner, id)).sender_full_name, "Stella Stranger");

    // Bots are always accessible; the guest's own messages and those of users sharing the channel keep their names.
    const fromBot = await toBackroom(server.fixtures.bot, "beep");
    const fromOwner = await toBackroom(owner, "welcome");
    const fromGuest = await toBackroom(guest, "thanks");
    const names = await narrowed(guest, [{ operator: "channel", operand: "backroom" }]);
    const nameOf = (mid: number) => names.find((m) => m.id === mid)?.sender_full_name;
    assert.deepEqual([nameOf(fromBot), nameOf(fromOwner), nameOf(fromGuest)], ["Helper Bot", "Olivia Owner", "Gus Guest"]);
    const named = (await pollEvents(server.api, guestQueue)).map((e) => (e as { message: Message }).message.sender_full_name);
    assert.deepEqual(named, ["Helper Bot", "Olivia Owner", "Gus Guest"]);

    // Once the organization lets everyone access all users, the guest sees the sender.
    await restrictGuests(false);
    try {
      assert.equal((await readOne(guest, id)).sender_full_name, "Stella Stranger");
      const later = await toBackroom(stella, "still here");
      const [event] = await pollEvents(server.api, guestQueue);
      assert.deepEqual([(event as { message: Message }).message.id, (event as { message: Message }).message.sender_full_name], [later, "Stella Stranger"]);
    } finally {
      await restrictGuests(true);
    }
  });

  test("a direct message makes its sender accessible: the guest sees their name everywhere, as Zulip counts direct conversations", async () => {
    const { guest } = server.fixtures;
    const sam = await stranger("Sam Stranger");
    const earlier = await toBackroom(sam, "first");
    assert.equal((await readOne(guest, earlier)).sender_full_name, "Unknown user");
    const guestQueue = await registerQueue(server.api, guest, { event_types: JSON.stringify(["message"]) });
    const direct = expectSuccess(await server.api.post(sam, "/messages", { type: "private", to: JSON.stringify([guest.id]), content: "hello there" })).id as number;
    const [event] = await pollEvents(server.api, guestQueue);
    const dm = (event as { message: Message }).message;
    assert.deepEqual([dm.id, dm.sender_full_name, dm.sender_email], [direct, "Sam Stranger", sam.email]);
    assert.deepEqual(
      (dm.display_recipient as Array<{ id: number; full_name: string }>).map((u) => [u.id, u.full_name]).sort(),
      [[guest.id, "Gus Guest"], [sam.id, "Sam Stranger"]].sort(),
    );
    assert.equal((await readOne(guest, earlier)).sender_full_name, "Sam Stranger");
    assert.equal(expectSuccess(await server.api.get(guest, `/users/${sam.id}`)).user.full_name, "Sam Stranger");
    // The guest may now write back.
    expectSuccess(await server.api.post(guest, "/messages", { type: "private", to: JSON.stringify([sam.id]), content: "hi" }));
  });

  test("the unknown-user avatar is a PNG anyone may load", async () => {
    const res = await fetch(unknownAvatar);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  test("a phone notification of an inaccessible sender's message names Unknown user", async () => {
    const { guest } = server.fixtures;
    expectSuccess(await server.api.post(guest, "/users/me/android_gcm_reg_id", { token: "fcm:guest" }));
    expectSuccess(await server.api.post(guest, "/users/me/apns_device_token", { token: "a".repeat(64), appid: "org.zulip.Zulip" }));
    const rita = await stranger("Rita Stranger");
    const sent = relay.legacyOutbox.length;
    await toBackroom(rita, "@**Gus Guest** are you there?");
    await pushWorkSettled(server);
    const delivered = relay.legacyOutbox.slice(sent).filter((d) => d.token === "fcm:guest" || d.kind === "apns");
    const fcm = delivered.find((d) => d.kind === "fcm")?.payload;
    assert.deepEqual([fcm?.sender_id, fcm?.sender_email, fcm?.sender_full_name, fcm?.sender_avatar_url], [rita.id, `user${rita.id}@${new URL(server.url).host}`, "Unknown user", unknownAvatar]);
    const apns = delivered.find((d) => d.kind === "apns")?.payload as { alert: { subtitle: string } } | undefined;
    assert.equal(apns?.alert.subtitle, "Unknown user mentioned you:");
  });

});
