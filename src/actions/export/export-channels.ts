/**
 * Channels and conversations as Zulip's tables: Stream rows with their permission groups,
 * Recipient rows (channels' and group conversations' under Parley's ids, a personal one per
 * user), huddles, Subscription rows (channels', each huddle member's, each user's own personal
 * one), default channels, and the audit log rows of subscriptions (created, reactivated,
 * deactivated, each with the newest message id at that moment), which say, with the UserMessage
 * rows, who received which channel message: made from Parley's subscription periods, so an import
 * makes the same periods again (actions/import/zulip-subscription-history.ts reads them).
 */
import { STREAM_GROUP_SETTING_NAMES, settingColumn } from "../../permissions/stream-settings.ts";
import { RECIPIENT_TYPE, type RealmRow, type StreamRow, type UserRow } from "../../store/schema/database.ts";
import { realmRows } from "../../store/export/organization-rows.ts";
import type { RowSource } from "../../formats/zulip/json-writer.ts";
import type { ExportEnv } from "./export-env.ts";
import type { ExportScope } from "./export-scope.ts";

/** Upstream's AuditLogEventType values written here. */
const SUBSCRIPTION_EVENT = { created: 301, activated: 302, deactivated: 303 } as const;

/** Upstream's Recipient types. */
const ZULIP_RECIPIENT = { personal: 1, stream: 2, huddle: 3 } as const;

function streamTableRow(s: StreamRow, recipient: number | null): object {
  return {
    id: s.id,
    realm: s.realm_id,
    name: s.name,
    description: s.description,
    rendered_description: s.rendered_description,
    date_created: s.date_created,
    creator: s.creator_id,
    deactivated: s.is_archived === 1,
    invite_only: s.invite_only === 1,
    is_web_public: s.is_web_public === 1,
    history_public_to_subscribers: s.history_public_to_subscribers === 1,
    message_retention_days: s.message_retention_days,
    first_message_id: s.first_message_id,
    recipient,
    ...Object.fromEntries(STREAM_GROUP_SETTING_NAMES.map((name) => [name, s[settingColumn(name)]])),
  };
}

/** The audit log of subscriptions: per (user, channel), its periods as created / reactivated / deactivated events. */
function* subscriptionLog(scope: ExportScope, realm: RealmRow): Generator<object> {
  let id = 0;
  for (const streamId of [...scope.streamIds].sort((a, b) => a - b)) {
    for (const [userId, periods] of scope.periodsOf(streamId)) {
      const base = { realm: realm.id, modified_user: userId, modified_stream: streamId, acting_user: null, event_time: realm.date_created };
      let first = true;
      for (const p of [...periods].sort((a, b) => a.first - b.first)) {
        yield { ...base, id: ++id, event_type: first ? SUBSCRIPTION_EVENT.created : SUBSCRIPTION_EVENT.activated, event_last_message_id: p.first - 1 };
        if (p.last !== null) yield { ...base, id: ++id, event_type: SUBSCRIPTION_EVENT.deactivated, event_last_message_id: p.last };
        first = false;
      }
    }
  }
}

/** The channel and conversation tables for realm.json. */
export async function channelTables(env: ExportEnv, scope: ExportScope, realm: RealmRow, users: readonly UserRow[], huddles: ReadonlyArray<{ id: number; recipientId: number; key: string; members: readonly number[] }>): Promise<Record<string, RowSource>> {
  const { db, realmId } = env;
  const recipients = await realmRows(db, "recipients", realmId);
  const streamRecipient = new Map(recipients.filter((r) => r.type === RECIPIENT_TYPE.stream).map((r) => [r.type_id, r.id]));
  const streams = (await realmRows(db, "streams", realmId)).filter((s) => scope.streamIds.has(s.id));
  const subscriptions = (await realmRows(db, "subscriptions", realmId)).filter((s) => scope.streamIds.has(s.stream_id));
  let subscriptionId = Math.max(0, ...subscriptions.map((s) => s.id));
  const bool = (v: number | null) => (v === null ? null : v === 1);
  return {
    zerver_stream: streams.map((s) => streamTableRow(s, streamRecipient.get(s.id) ?? null)),
    zerver_recipient: [
      ...streams.flatMap((s) => (streamRecipient.has(s.id) ? [{ id: streamRecipient.get(s.id), type: ZULIP_RECIPIENT.stream, type_id: s.id }] : [])),
      ...huddles.map((h) => ({ id: h.recipientId, type: ZULIP_RECIPIENT.huddle, type_id: h.id })),
      ...users.map((u) => ({ id: scope.personalRecipient.get(u.id), type: ZULIP_RECIPIENT.personal, type_id: u.id })),
    ],
    zerver_huddle: huddles.map((h) => ({ id: h.id, huddle_hash: h.key, recipient: h.recipientId, group_size: h.members.length })),
    zerver_subscription: [
      ...subscriptions.map((s) => ({
        id: s.id, user_profile: s.user_id, recipient: streamRecipient.get(s.stream_id), active: s.active === 1, is_user_active: s.is_user_active === 1,
        is_muted: s.is_muted === 1, color: s.color, pin_to_top: s.pin_to_top === 1, desktop_notifications: bool(s.desktop_notifications),
        audible_notifications: bool(s.audible_notifications), push_notifications: bool(s.push_notifications), email_notifications: bool(s.email_notifications),
        wildcard_mentions_notify: bool(s.wildcard_mentions_notify),
      })),
      ...huddles.flatMap((h) => h.members.map((userId) => ({ id: ++subscriptionId, user_profile: userId, recipient: h.recipientId, active: true, is_user_active: true, is_muted: false, color: "#c2c2c2", pin_to_top: false }))),
      ...users.map((u) => ({ id: ++subscriptionId, user_profile: u.id, recipient: scope.personalRecipient.get(u.id), active: true, is_user_active: u.is_active === 1, is_muted: false, color: "#c2c2c2", pin_to_top: false })),
    ],
    zerver_defaultstream: (await realmRows(db, "default_streams", realmId)).filter((d) => scope.streamIds.has(d.stream_id)).map((d) => ({ id: d.id, realm: realmId, stream: d.stream_id })),
    zerver_realmauditlog: subscriptionLog(scope, realm),
  };
}
