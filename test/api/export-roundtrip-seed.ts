/**
 * The organization export-roundtrip.test.ts exports, made through Parley's own API on a suite's
 * server: the fixture people plus a late joiner, a deactivated user and an outgoing-webhook bot;
 * public and private channels (one with private history); channel, direct and group direct
 * messages; unicode and custom emoji reactions, an upload linked from a message, an edited and a
 * moved message, stars and read flags, muted and followed topics, a muted user, nested user
 * groups, alert words, a linkifier, a custom profile field with values, a scheduled message, a
 * saved snippet, user statuses; the member allows the export of their private data.
 */
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { createStream, createUser, sendDirectMessage, sendStreamMessage, type Account } from "../helpers/factories.ts";
import type { TestServer } from "../helpers/server.ts";
import { PNG, postFiles, uploadFile } from "./uploads-support.ts";

/** What the tests need of the seeded organization. */
export type Seeded = {
  late: Account;
  gone: Account;
  upload: string;
  edited: number;
  moved: number;
  /** Direct messages with the consenting member in them, and without. */
  consentedDirect: number[];
  otherDirect: number[];
  streams: { town: number; secret: number; shared: number };
};

/** Seeds the organization on `server` (its fixture people act). */
export async function seedOrganization(server: TestServer): Promise<Seeded> {
  const { owner, admin, moderator, member, guest } = server.fixtures;
  const api = server.api;
  const ok = async (p: ReturnType<typeof api.post>) => expectSuccess(await p);
  const late = await createUser(server, { name: "Lena Late" });
  const gone = await createUser(server, { name: "Gerd Gone" });

  await ok(api.patch(member, "/settings", { allow_private_data_export: true }));
  await ok(api.post(owner, "/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: "https://tracker.example/issues/{id}" }));
  const field = (await ok(api.post(owner, "/realm/profile_fields", { name: "Team", hint: "Which team", field_type: 1 }))).id as number;
  for (const [user, team] of [[member, "Robotics"], [owner, "Board"]] as const) await ok(api.patch(user, "/users/me/profile_data", { data: JSON.stringify([{ id: field, value: team }]) }));
  expectSuccess(await postFiles(server, admin, "/realm/emoji/shipit", [{ name: "e.png", data: PNG, type: "image/png" }]));
  await ok(api.post(member, "/bots", { full_name: "Hook Bot", short_name: "hook", bot_type: 3, payload_url: JSON.stringify("https://hooks.example/parley"), interface_type: 1 }));

  const everyone = [owner, admin, moderator, member, guest, gone].map((u) => u.id);
  const town = await createStream(server, owner, "town square", { principals: JSON.stringify(everyone) });
  const secret = await createStream(server, owner, "secret plans", { invite_only: true, history_public_to_subscribers: false, principals: JSON.stringify([owner.id, admin.id, member.id]) });
  const shared = await createStream(server, owner, "shared history", { invite_only: true, history_public_to_subscribers: true, principals: JSON.stringify([owner.id, member.id, guest.id]) });

  await ok(api.post(member, "/users/me/alert_words", { alert_words: JSON.stringify(["robot"]) }));
  const hello = await sendStreamMessage(server, owner, town, "welcome", "Hello **everyone**, see #42 and @**Max Member**");
  const robot = await sendStreamMessage(server, admin, town, "welcome", "the robot is ready");
  const upload = expectSuccess(await uploadFile(server, member, "plan.txt", "the plan, in full", "text/plain")).url as string;
  await sendStreamMessage(server, member, town, "plans", `here is [the plan](${upload})`);
  const edited = await sendStreamMessage(server, member, town, "plans", "a first draft");
  await ok(api.patch(member, `/messages/${edited}`, { content: "the final draft" }));
  const moved = await sendStreamMessage(server, owner, town, "misc", "this belongs elsewhere");
  await ok(api.patch(owner, `/messages/${moved}`, { topic: "plans", propagate_mode: "change_one" }));
  await sendStreamMessage(server, gone, town, "welcome", "goodbye soon");
  await sendStreamMessage(server, owner, secret, "q3", "before the late joiner");
  await sendStreamMessage(server, guest, shared, "hi", "a guest speaks");

  await ok(api.post(owner, "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "town square" }, { name: "secret plans" }]), principals: JSON.stringify([late.id]) }));
  await sendStreamMessage(server, admin, secret, "q3", "after the late joiner");
  await sendStreamMessage(server, late, town, "welcome", "hi, I am new");

  const consentedDirect = [
    await sendDirectMessage(server, member, [owner.id], "a word in private"),
    await sendDirectMessage(server, owner, [admin.id, member.id], "a group of three"),
    await sendDirectMessage(server, member, [member.id], "a note to self"),
  ];
  const otherDirect = [await sendDirectMessage(server, admin, [moderator.id], "not for export"), await sendDirectMessage(server, admin, [moderator.id, guest.id], "nor this")];

  await ok(api.post(member, `/messages/${hello}/reactions`, { emoji_name: "tada" }));
  await ok(api.post(owner, `/messages/${hello}/reactions`, { emoji_name: "shipit" }));
  await ok(api.post(admin, `/messages/${consentedDirect[1]}/reactions`, { emoji_name: "octopus" }));
  await ok(api.post(member, "/messages/flags", { messages: JSON.stringify([hello, edited]), op: "add", flag: "starred" }));
  await ok(api.post(member, "/messages/flags", { messages: JSON.stringify([hello, robot]), op: "add", flag: "read" }));
  await ok(api.post(guest, "/messages/flags", { messages: JSON.stringify([hello]), op: "add", flag: "starred" }));
  await ok(api.post(member, "/user_topics", { stream_id: town, topic: "misc", visibility_policy: 1 }));
  await ok(api.post(member, "/user_topics", { stream_id: town, topic: "plans", visibility_policy: 3 }));
  await ok(api.post(member, `/users/me/muted_users/${moderator.id}`));

  const leads = (await ok(api.post(owner, "/user_groups/create", { name: "leads", description: "team leads", members: JSON.stringify([owner.id, admin.id]) }))).group_id as number;
  const staff = (await ok(api.post(owner, "/user_groups/create", { name: "staff", description: "everyone on staff", members: JSON.stringify([member.id]) }))).group_id as number;
  await ok(api.post(owner, `/user_groups/${staff}/subgroups`, { add: JSON.stringify([leads]) }));

  const tomorrow = Math.floor(Date.now() / 1000) + 86_400;
  await ok(api.post(member, "/scheduled_messages", { type: "stream", to: town, topic: "later", content: "scheduled for tomorrow", scheduled_delivery_timestamp: tomorrow }));
  await ok(api.post(member, "/saved_snippets", { title: "greeting", content: "Hello there!" }));
  for (const [user, text] of [[member, "building robots"], [owner, "in meetings"]] as [Credentials, string][]) {
    await ok(api.post(user, "/users/me/status", { status_text: text, emoji_name: "robot" }));
  }
  await ok(api.delete(owner, `/users/${gone.id}`));
  return { late, gone, upload, edited, moved, consentedDirect, otherDirect, streams: { town, secret, shared } };
}
