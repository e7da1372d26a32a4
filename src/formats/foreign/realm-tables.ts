/**
 * The organization's tables of the Zulip export made of a foreign organization, in realm.json's
 * terms: the Realm, its people (each with a personal recipient), Zulip's system groups with
 * every person in their role's group and the groups nested as upstream nests them, channels with
 * their recipients and subscriptions (and an audit-log row per subscription, from the channel's
 * start, so who received what is known), default channels, group conversations and their
 * members' subscriptions, custom emoji, and the one client the messages are sent from.
 */
import type { ForeignOrganization } from "./organization.ts";
import { RECIPIENT, REALM_ID, SYSTEM_GROUPS, ZULIP_ROLE, type ZulipIds } from "./zulip-ids.ts";

/** Zulip's generic bot type. */
const GENERIC_BOT = 1;
/** RealmAuditLog's "subscription created". */
const SUBSCRIPTION_CREATED = 301;

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Every channel's subscribers by channel id (members the export names who are among the users). */
export function channelSubscribers(org: ForeignOrganization, ids: ZulipIds): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const c of org.channels) {
    const members = c.memberKeys.flatMap((k) => (ids.users.has(k) ? [ids.users.get(k)!] : []));
    out.set(ids.channels.get(c.key)!, [...new Set(members)]);
  }
  return out;
}

function groupTables(org: ForeignOrganization, ids: ZulipIds): Record<string, object[]> {
  const groupId = (i: number) => i + 1;
  const members: object[] = [];
  SYSTEM_GROUPS.forEach((g, i) => {
    for (const u of org.users) if (g.roles.includes(u.role)) members.push({ id: members.length + 1, user_group: groupId(i), user_profile: ids.users.get(u.key) });
  });
  // owners ⊂ administrators ⊂ moderators ⊂ full members ⊂ members ⊂ everyone ⊂ internet.
  const nesting = SYSTEM_GROUPS.slice(0, 6).map((_, i) => ({ id: i + 1, supergroup: groupId(i + 1), subgroup: groupId(i) }));
  return {
    zerver_usergroup: SYSTEM_GROUPS.map((_, i) => ({ id: groupId(i), realm: REALM_ID })),
    zerver_namedusergroup: SYSTEM_GROUPS.map((g, i) => ({ id: groupId(i), usergroup_ptr: groupId(i), realm_for_sharding: REALM_ID, name: g.name, description: "", is_system_group: true, deactivated: false, date_created: null, creator: null })),
    zerver_usergroupmembership: members,
    zerver_groupgroupmembership: nesting,
  };
}

/** realm.json's tables, once every message is converted (the group conversations are known then). */
export function realmTables(org: ForeignOrganization, ids: ZulipIds, subscribers: Map<number, number[]>, emoji: object[], reactions: object[]): Record<string, object[]> {
  const earliest = Math.min(...org.users.map((u) => u.dateJoined), ...org.channels.map((c) => c.created).filter((t) => t > 0));
  const created = Number.isFinite(earliest) ? earliest : Math.floor(Date.now() / 1000);
  const users = org.users.map((u) => {
    const id = ids.users.get(u.key)!;
    return {
      id, realm: REALM_ID, email: u.email, delivery_email: u.email, full_name: u.fullName, role: ZULIP_ROLE[u.role], is_active: u.isActive,
      is_bot: u.bot !== undefined, bot_type: u.bot ? GENERIC_BOT : null, bot_owner: u.bot?.ownerKey ? (ids.users.get(u.bot.ownerKey) ?? null) : null,
      date_joined: u.dateJoined, timezone: u.timezone, avatar_source: "G", avatar_version: 1, is_billing_admin: false, email_address_visibility: 1,
      recipient: ids.personal.get(id), long_term_idle: false,
    };
  });
  const recipients: object[] = [...ids.personal].map(([userId, id]) => ({ id, type: RECIPIENT.personal, type_id: userId }));
  const subscriptions: object[] = [];
  const auditLog: object[] = [];
  const streams = org.channels.map((c) => {
    const id = ids.channels.get(c.key)!;
    const recipient = ids.channelRecipient.get(id)!;
    recipients.push({ id: recipient, type: RECIPIENT.stream, type_id: id });
    for (const userId of subscribers.get(id) ?? []) {
      subscriptions.push({ id: subscriptions.length + 1, user_profile: userId, recipient, active: true, is_user_active: org.users[userId - 1].isActive, color: "#c2c2c2" });
      auditLog.push({ id: auditLog.length + 1, realm: REALM_ID, event_type: SUBSCRIPTION_CREATED, event_time: c.created || created, modified_user: userId, modified_stream: id, event_last_message_id: 0, acting_user: null });
    }
    return {
      id, realm: REALM_ID, name: c.name, description: c.description, rendered_description: c.description === "" ? "" : `<p>${escapeHtml(c.description)}</p>`,
      date_created: c.created || created, creator: c.creatorKey === null ? null : (ids.users.get(c.creatorKey) ?? null), deactivated: c.isArchived,
      invite_only: c.isPrivate, is_web_public: false, history_public_to_subscribers: true, message_retention_days: null, first_message_id: null, recipient,
    };
  });
  const groups = [...ids.groups.values()];
  for (const g of groups) {
    recipients.push({ id: g.recipient, type: RECIPIENT.directGroup, type_id: g.id });
    for (const userId of g.members) subscriptions.push({ id: subscriptions.length + 1, user_profile: userId, recipient: g.recipient, active: true, is_user_active: true, color: "#c2c2c2" });
  }
  return {
    zerver_realm: [{ id: REALM_ID, string_id: org.stringId, name: org.name, description: "", date_created: created, deactivated: false }],
    zerver_client: [{ id: 1, name: `${org.source} import` }],
    zerver_userprofile: users,
    zerver_userprofile_crossrealm: [],
    ...groupTables(org, ids),
    zerver_recipient: recipients.sort((a, b) => (a as { id: number }).id - (b as { id: number }).id),
    zerver_stream: streams,
    zerver_subscription: subscriptions,
    zerver_directmessagegroup: groups.map((g) => ({ id: g.id, recipient: g.recipient, group_size: g.members.length, huddle_hash: g.members.join(",") })),
    zerver_defaultstream: org.channels.filter((c) => c.isDefault).map((c, i) => ({ id: i + 1, realm: REALM_ID, stream: ids.channels.get(c.key) })),
    zerver_realmauditlog: auditLog,
    zerver_realmemoji: emoji,
    zerver_reaction: reactions,
  };
}
