/**
 * People and bots: every UserProfile of the export with its id, role, state, settings and
 * timezone, without a password (exports hold none) and with a new API key; Zulip's cross-realm
 * bots (the Notification Bot, the Welcome Bot, the email gateway), whose messages the export
 * holds, become the organization's own system bots under their ids; then what belongs to each
 * user: bots' outgoing-webhook services, custom profile values, statuses, presence, alert words,
 * muted users and saved snippets.
 */
import { randomUUID } from "node:crypto";
import { randomAlphanumeric } from "../../secrets.ts";
import { emailDomain } from "../../model/emails.ts";
import { ROLE } from "../../model/roles.ts";
import { insertRows } from "../../store/import/bulk-insert.ts";
import type { NewUser } from "../../store/schema/database.ts";
import type { ZulipExport } from "../../formats/zulip/export-reader.ts";
import {
  alertWordRow, crossRealmBotRow, mutedUserRow, presenceRow, presenceSequenceRow, profileValueRow, savedSnippetRow, serviceRow, userRow, userStatusRow, type Row,
} from "../../formats/zulip/rows.ts";
import { count, flag, refuse, seconds, type ImportEnv } from "./import-env.ts";
import { personalSettingsText } from "./zulip-organization.ts";
import type { ZulipImportState } from "./zulip-state.ts";

/** Zulip's generic bot type (the cross-realm bots are generic bots). */
const GENERIC_BOT = 1;

/** Zulip's cross-realm bots by the local part of their address: Parley's system bot of that name, or a plain bot. */
const CROSS_REALM_BOTS: Readonly<Record<string, { fullName: string; systemBot: boolean }>> = {
  "notification-bot": { fullName: "Notification Bot", systemBot: true },
  "welcome-bot": { fullName: "Welcome Bot", systemBot: true },
  emailgateway: { fullName: "Email Gateway", systemBot: false },
};

function humanOrBot(env: ImportEnv, u: Row<typeof userRow>, avatars: ReadonlyMap<number, string>): NewUser {
  const extra: Record<string, unknown> = JSON.parse(personalSettingsText(u));
  if (u.can_change_user_emails === true) extra.can_change_user_emails = true;
  return {
    id: u.id,
    realm_id: env.realmId,
    delivery_email: u.delivery_email,
    email_address_visibility: u.email_address_visibility,
    full_name: u.full_name,
    role: u.role,
    is_active: flag(u.is_active),
    is_bot: flag(u.is_bot),
    bot_type: u.is_bot ? u.bot_type : null,
    bot_owner_id: u.is_bot ? u.bot_owner : null,
    api_key: randomAlphanumeric(32),
    password_hash: null,
    date_joined: seconds(u.date_joined),
    timezone: u.timezone,
    avatar_source: u.avatar_source === "U" && avatars.has(u.id) ? "U" : "G",
    avatar_version: u.avatar_version,
    is_billing_admin: flag(u.is_billing_admin),
    settings: JSON.stringify(extra),
    can_create_users: flag(u.can_create_users === true),
    uuid: typeof u.uuid === "string" ? u.uuid : randomUUID(),
  };
}

function crossRealmBot(env: ImportEnv, bot: Row<typeof crossRealmBotRow>, joined: number): NewUser {
  const localPart = bot.email.split("@")[0];
  const known = CROSS_REALM_BOTS[localPart];
  return {
    id: bot.id,
    realm_id: env.realmId,
    delivery_email: known?.systemBot ? `${localPart}@${emailDomain(env.externalUrl)}` : bot.email,
    email_address_visibility: 1,
    full_name: known?.fullName ?? localPart,
    role: ROLE.member,
    is_active: 1,
    is_bot: 1,
    bot_type: GENERIC_BOT,
    bot_owner_id: null,
    api_key: randomAlphanumeric(32),
    password_hash: null,
    date_joined: joined,
    timezone: "",
    avatar_source: "G",
    avatar_version: 1,
    is_billing_admin: 0,
    settings: "{}",
    can_create_users: 0,
    uuid: randomUUID(),
  };
}

/** Writes every user and bot (owners before the bots they own). */
export async function writeUsers(env: ImportEnv, source: ZulipExport, state: ZulipImportState, realmCreated: number): Promise<void> {
  const users = await source.all("realm", "zerver_userprofile", userRow);
  const crossRealm = await source.all("realm", "zerver_userprofile_crossrealm", crossRealmBotRow);
  for (const u of users) state.users.set(u.id, { isActive: u.is_active });
  const uploaded = new Set(users.filter((u) => u.avatar_source === "U").map((u) => u.id));
  state.avatarFiles = new Map([...state.avatarFiles].filter(([userId]) => uploaded.has(userId)));
  for (const b of crossRealm) {
    if (state.users.has(b.id)) refuse(`user ${b.id} is both a user of the organization and a cross-realm bot`);
    state.users.set(b.id, { isActive: true });
  }
  for (const u of users) {
    if (u.is_bot && u.bot_owner !== null && !state.users.has(u.bot_owner)) refuse(`bot ${u.id} names owner ${u.bot_owner}, who is not in the export`);
  }
  // Humans first: a bot's owner must exist when the bot is written.
  const ordered = [...users.filter((u) => !u.is_bot), ...users.filter((u) => u.is_bot)];
  await insertRows(env.tx, "users", [...crossRealm.map((b) => crossRealmBot(env, b, seconds(b.date_joined ?? realmCreated))), ...ordered.map((u) => humanOrBot(env, u, state.avatarFiles))]);
  const lost = users.filter((u) => u.avatar_source === "U" && !state.avatarFiles.has(u.id));
  if (lost.length > 0) env.notes.push(`${lost.length} uploaded avatars are not in the export (users ${lost.map((u) => u.id).join(", ")}): they show their gravatar`);
  count(env, "users", users.filter((u) => !u.is_bot).length);
  count(env, "bots", users.filter((u) => u.is_bot).length);
  count(env, "system bots", crossRealm.length);
  env.log(`users: ${users.length} (${users.filter((u) => u.is_bot).length} bots), and ${crossRealm.length} system bots`);
}

function knownUser(state: ZulipImportState, userId: number, what: string): void {
  if (!state.users.has(userId)) refuse(`${what} names user ${userId}, who is not in the export`);
}

/** Writes what belongs to each user: services, profile values, statuses, presence, alert words, muted users, snippets. */
export async function writeUserTables(env: ImportEnv, source: ZulipExport, state: ZulipImportState): Promise<void> {
  const realm_id = env.realmId;
  const services = await source.all("realm", "zerver_service", serviceRow);
  services.forEach((s) => knownUser(state, s.user_profile, `service ${s.id}`));
  await insertRows(env.tx, "services", services.map((s) => ({ id: s.id, realm_id, bot_user_id: s.user_profile, base_url: s.base_url, token: s.token, interface: s.interface })));
  const values = await source.all("realm", "zerver_customprofilefieldvalue", profileValueRow);
  values.forEach((v) => knownUser(state, v.user_profile, `custom profile value ${v.id}`));
  await insertRows(env.tx, "custom_profile_values", values.map((v) => ({ realm_id, user_id: v.user_profile, field_id: v.field, value: v.value, rendered_value: v.rendered_value })));
  const statuses = await source.all("realm", "zerver_userstatus", userStatusRow);
  statuses.forEach((s) => knownUser(state, s.user_profile, `user status ${s.id}`));
  await insertRows(
    env.tx,
    "user_status",
    statuses.map((s) => ({ user_id: s.user_profile, realm_id, status_text: s.status_text, emoji_name: s.emoji_name, emoji_code: s.emoji_code, reaction_type: s.reaction_type, timestamp: seconds(s.timestamp) })),
  );
  await writePresence(env, source, state);
  const words = await source.all("realm", "zerver_alertword", alertWordRow);
  words.forEach((w) => knownUser(state, w.user_profile, `alert word ${w.id}`));
  await insertRows(env.tx, "alert_words", words.map((w) => ({ id: w.id, realm_id, user_id: w.user_profile, word: w.word })));
  const muted = await source.all("realm", "zerver_muteduser", mutedUserRow);
  muted.forEach((m) => [m.user_profile, m.muted_user].forEach((id) => knownUser(state, id, `muted user ${m.id}`)));
  await insertRows(env.tx, "muted_users", muted.map((m) => ({ id: m.id, realm_id, user_id: m.user_profile, muted_user_id: m.muted_user, date_muted: seconds(m.date_muted) })));
  const snippets = await source.all("realm", "zerver_savedsnippet", savedSnippetRow);
  snippets.forEach((s) => knownUser(state, s.user_profile, `saved snippet ${s.id}`));
  await insertRows(env.tx, "saved_snippets", snippets.map((s) => ({ id: s.id, realm_id, user_id: s.user_profile, title: s.title, content: s.content, date_created: seconds(s.date_created) })));
  count(env, "services", services.length);
  count(env, "custom profile values", values.length);
  count(env, "user statuses", statuses.length);
  count(env, "alert words", words.length);
  count(env, "muted users", muted.length);
  count(env, "saved snippets", snippets.length);
}

async function writePresence(env: ImportEnv, source: ZulipExport, state: ZulipImportState): Promise<void> {
  const rows = await source.all("realm", "zerver_userpresence", presenceRow);
  rows.forEach((p) => knownUser(state, p.user_profile, `presence row ${p.id}`));
  await insertRows(
    env.tx,
    "user_presence",
    rows.flatMap((p) => {
      const connected = p.last_connected_time ?? p.last_active_time;
      if (connected === null) return [];
      return [{ user_id: p.user_profile, realm_id: env.realmId, last_active_time: p.last_active_time === null ? null : seconds(p.last_active_time), last_connected_time: seconds(connected), last_update_id: p.last_update_id }];
    }),
  );
  const sequence = await source.all("realm", "zerver_presencesequence", presenceSequenceRow);
  const last = Math.max(0, ...sequence.map((s) => s.last_update_id), ...rows.map((p) => p.last_update_id));
  await insertRows(env.tx, "presence_sequence", [{ realm_id: env.realmId, last_update_id: last }]);
}
