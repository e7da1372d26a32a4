/**
 * Channels and conversations: each Stream under its id with its settings, permission groups,
 * description, archived state and recipient row (Zulip's recipient id kept, so messages'
 * recipient_id stays); group direct-message conversations (Zulip's huddles, members read from
 * their subscriptions); channel subscriptions with their personal settings; default channels;
 * topics muted, unmuted or followed; and each subscription's history (zulip-subscription-history.ts).
 */
import { STREAM_GROUP_SETTINGS, STREAM_GROUP_SETTING_NAMES, settingColumn, type StreamGroupColumn } from "../../permissions/stream-settings.ts";
import { SYSTEM_GROUP, type SystemGroupName } from "../../model/roles.ts";
import { RECIPIENT_TYPE, type NewStream } from "../../store/schema/database.ts";
import { insertRows } from "../../store/import/bulk-insert.ts";
import type { ZulipExport } from "../../formats/zulip/export-reader.ts";
import { clientRow, defaultStreamRow, directGroupRow, recipientRow, streamRow, subscriptionRow, userTopicRow, type Row } from "../../formats/zulip/rows.ts";
import { count, flag, optionalFlag, refuse, seconds, type ImportEnv } from "./import-env.ts";
import { ZULIP_RECIPIENT, type ZulipImportState } from "./zulip-state.ts";
import { replaySubscriptions } from "./zulip-subscription-history.ts";

/** Zulip 10's stream_post_policy as can_send_message_group (upstream's migration to Zulip 11). */
const STREAM_POST_POLICY: Readonly<Record<number, SystemGroupName>> = {
  1: SYSTEM_GROUP.everyone,
  2: SYSTEM_GROUP.administrators,
  3: SYSTEM_GROUP.fullMembers,
  4: SYSTEM_GROUP.moderators,
};

/** A channel's permission columns: the export's groups where it has them, else the group upstream's migration or Parley's default gives. */
function channelSettings(stream: Row<typeof streamRow>, state: ZulipImportState): Record<StreamGroupColumn, number> {
  const out = {} as Record<StreamGroupColumn, number>;
  for (const setting of STREAM_GROUP_SETTING_NAMES) {
    const value = stream[setting];
    if (typeof value === "number") {
      if (!state.groupIds.has(value)) refuse(`channel ${stream.id}'s ${setting} names user group ${value}, which the export does not hold`);
      out[settingColumn(setting)] = value;
      continue;
    }
    const policy = setting === "can_send_message_group" && typeof stream.stream_post_policy === "number" ? STREAM_POST_POLICY[stream.stream_post_policy] : undefined;
    const fallback = STREAM_GROUP_SETTINGS[setting].default;
    // "creator" (an anonymous group of the creator) is what new channels get; existing channels
    // got role:nobody when upstream added the setting, administrators keeping their rights.
    const name = policy ?? (fallback === "creator" ? SYSTEM_GROUP.nobody : fallback);
    const id = state.systemGroups.get(name);
    if (id === undefined) refuse(`the export lacks the system group ${name}`);
    out[settingColumn(setting)] = id;
  }
  return out;
}

async function writeStreams(env: ImportEnv, source: ZulipExport, state: ZulipImportState): Promise<void> {
  const streams = await source.all("realm", "zerver_stream", streamRow);
  const rows: NewStream[] = [];
  const recipients: Array<{ id: number; realm_id: number; type: number; type_id: number }> = [];
  for (const s of streams) {
    if (s.creator !== null && !state.users.has(s.creator)) refuse(`channel ${s.id} names creator ${s.creator}, who is not in the export`);
    const recipientId = s.recipient ?? [...state.recipients].find(([, r]) => r.type === ZULIP_RECIPIENT.stream && r.typeId === s.id)?.[0];
    if (recipientId === undefined) refuse(`channel ${s.id} has no recipient row`);
    state.streams.set(s.id, { recipientId });
    rows.push({
      id: s.id,
      realm_id: env.realmId,
      name: s.name,
      description: s.description,
      rendered_description: s.rendered_description,
      invite_only: flag(s.invite_only),
      is_web_public: flag(s.is_web_public),
      history_public_to_subscribers: flag(s.history_public_to_subscribers),
      message_retention_days: s.message_retention_days,
      date_created: seconds(s.date_created),
      creator_id: s.creator,
      is_archived: flag(s.deactivated),
      first_message_id: s.first_message_id,
      ...channelSettings(s, state),
    });
    recipients.push({ id: recipientId, realm_id: env.realmId, type: RECIPIENT_TYPE.stream, type_id: s.id });
  }
  await insertRows(env.tx, "streams", rows);
  await insertRows(env.tx, "recipients", recipients);
  count(env, "channels", streams.length);
}

/** Group conversations: Zulip's huddles (zerver_directmessagegroup from Zulip 11 on), members from their subscriptions. */
async function writeDirectGroups(source: ZulipExport, state: ZulipImportState, subscriptions: ReadonlyArray<Row<typeof subscriptionRow>>): Promise<void> {
  const table = (await source.has("realm", "zerver_directmessagegroup")) ? "zerver_directmessagegroup" : "zerver_huddle";
  const groups = await source.all("realm", table, directGroupRow);
  const membersByRecipient = new Map<number, number[]>();
  for (const s of subscriptions) {
    const list = membersByRecipient.get(s.recipient);
    if (list) list.push(s.user_profile);
    else membersByRecipient.set(s.recipient, [s.user_profile]);
  }
  for (const g of groups) {
    const recipientId = g.recipient ?? [...state.recipients].find(([, r]) => r.type === ZULIP_RECIPIENT.directGroup && r.typeId === g.id)?.[0];
    if (recipientId === undefined) continue;
    const members = [...new Set(membersByRecipient.get(recipientId) ?? [])].sort((a, b) => a - b);
    if (members.length > 0) state.addConversation({ groupId: g.id, recipientId, members });
  }
  state.nextDirectGroupId = Math.max(0, ...groups.map((g) => g.id)) + 1;
}

/** Writes channels, group conversations, subscriptions, default channels, topic policies and subscription history. */
export async function writeChannels(env: ImportEnv, source: ZulipExport, state: ZulipImportState): Promise<void> {
  for (const c of await source.all("realm", "zerver_client", clientRow)) state.clients.set(c.id, c.name);
  for (const r of await source.all("realm", "zerver_recipient", recipientRow)) state.recipients.set(r.id, { type: r.type, typeId: r.type_id });
  state.nextRecipientId = Math.max(0, ...state.recipients.keys()) + 1;
  await writeStreams(env, source, state);
  const subscriptions = await source.all("realm", "zerver_subscription", subscriptionRow);
  for (const s of subscriptions) {
    if (!state.users.has(s.user_profile)) refuse(`subscription ${s.id} names user ${s.user_profile}, who is not in the export`);
    if (!state.recipients.has(s.recipient)) refuse(`subscription ${s.id} names recipient ${s.recipient}, which the export does not hold`);
  }
  const channelSubs = subscriptions.filter((s) => state.recipients.get(s.recipient)?.type === ZULIP_RECIPIENT.stream);
  await writeDirectGroups(source, state, subscriptions.filter((s) => state.recipients.get(s.recipient)?.type === ZULIP_RECIPIENT.directGroup));
  const streamOf = (s: Row<typeof subscriptionRow>) => state.recipients.get(s.recipient)?.typeId ?? 0;
  await insertRows(
    env.tx,
    "subscriptions",
    channelSubs.map((s) => ({
      id: s.id,
      realm_id: env.realmId,
      user_id: s.user_profile,
      stream_id: streamOf(s),
      active: flag(s.active),
      is_muted: flag(s.is_muted),
      color: s.color,
      pin_to_top: flag(s.pin_to_top),
      desktop_notifications: optionalFlag(s.desktop_notifications),
      audible_notifications: optionalFlag(s.audible_notifications),
      push_notifications: optionalFlag(s.push_notifications),
      email_notifications: optionalFlag(s.email_notifications),
      wildcard_mentions_notify: optionalFlag(s.wildcard_mentions_notify),
      is_user_active: flag(state.users.get(s.user_profile)?.isActive ?? true),
    })),
  );
  state.history = await replaySubscriptions(source, state, channelSubs.map((s) => ({ userId: s.user_profile, streamId: streamOf(s), active: s.active })));
  if (state.history.unrecorded > 0) env.notes.push(`${state.history.unrecorded} subscriptions had no history in the audit log: taken as held from the channel's start`);
  const defaults = await source.all("realm", "zerver_defaultstream", defaultStreamRow);
  defaults.forEach((d) => state.streams.has(d.stream) || refuse(`default channel ${d.id} names channel ${d.stream}, which the export does not hold`));
  await insertRows(env.tx, "default_streams", defaults.map((d) => ({ id: d.id, realm_id: env.realmId, stream_id: d.stream })));
  const topics = await source.all("realm", "zerver_usertopic", userTopicRow);
  for (const t of topics) {
    if (!state.users.has(t.user_profile) || !state.streams.has(t.stream)) refuse(`topic setting ${t.id} names a user or channel the export does not hold`);
  }
  await insertRows(
    env.tx,
    "user_topics",
    topics.map((t) => ({ id: t.id, realm_id: env.realmId, user_id: t.user_profile, stream_id: t.stream, topic: t.topic_name, visibility_policy: t.visibility_policy, last_updated: seconds(t.last_updated) })),
  );
  count(env, "subscriptions", channelSubs.length);
  count(env, "default channels", defaults.length);
  count(env, "topic settings", topics.length);
  env.log(`channels: ${state.streams.size}, ${channelSubs.length} subscriptions, ${state.conversations.size} group conversations`);
}
