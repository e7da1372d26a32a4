/**
 * Channel settings shared by creation and update: the permission group settings with their
 * defaults and rules, name and retention validation, and subscription colors.
 */
import { JsonableError } from "../../errors.ts";
import { hasRealmPermission } from "../../permissions/check.ts";
import { newSettingColumns, storeGroupSetting, type GroupSettingValue } from "../../permissions/group-setting.ts";
import { REALM_SCALAR_DEFAULTS, realmSettings } from "../../permissions/realm-settings.ts";
import {
  settingColumn,
  STREAM_GROUP_SETTING_NAMES,
  STREAM_GROUP_SETTINGS,
  type StreamGroupColumn,
  type StreamGroupSetting,
} from "../../permissions/stream-settings.ts";
import { SYSTEM_GROUP, ROLE } from "../../model/roles.ts";
import type { Db } from "../../store/schema/types.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import { systemGroupsByName } from "../../store/groups/user-groups.ts";

/** Settings whose change needs content access to the channel (they grant it to others). */
export const CONTENT_ACCESS_SETTINGS: readonly StreamGroupSetting[] = ["can_add_subscribers_group", "can_subscribe_group"];

/**
 * Validates a requested value and returns the group id to store (creating an anonymous group
 * when needed). Refuses role:internet always, role:everyone where guests may not hold the
 * setting, and message-deletion grants from users who may not set deletion policy.
 */
export async function storeStreamGroupSetting(db: Db, realm: RealmRow, actor: UserRow, setting: StreamGroupSetting, value: GroupSettingValue): Promise<number> {
  const forbidden: string[] = [SYSTEM_GROUP.internet];
  if (!STREAM_GROUP_SETTINGS[setting].allowEveryone) forbidden.push(SYSTEM_GROUP.everyone);
  const groupId = await storeGroupSetting(db, realm.id, value, { setting, forbiddenSystemGroups: forbidden });
  if (setting === "can_delete_any_message_group" || setting === "can_delete_own_message_group") {
    const nobody = (await systemGroupsByName(db, realm.id)).get(SYSTEM_GROUP.nobody)?.id;
    if (groupId !== nobody && !(await hasRealmPermission(db, realm, actor, "can_set_delete_message_policy_group"))) {
      throw new JsonableError("Insufficient permission");
    }
  }
  return groupId;
}

/** Group ids for every setting of a new channel: the requested values, else the defaults. */
export async function newStreamGroupSettings(db: Db, realm: RealmRow, creator: UserRow, requested: Partial<Record<StreamGroupSetting, GroupSettingValue>>): Promise<Record<StreamGroupColumn, number>> {
  const columns = await newSettingColumns(db, realm.id, creator, requested, {
    settings: STREAM_GROUP_SETTING_NAMES,
    column: settingColumn,
    defaultOf: (setting) => STREAM_GROUP_SETTINGS[setting].default,
    store: (setting, value) => storeStreamGroupSetting(db, realm, creator, setting, value),
  });
  // Every setting has a value: the loop went over them all.
  return columns as Record<StreamGroupColumn, number>;
}

/** Unicode non-characters and control/surrogate code points, refused in channel names. */
function isUnprintable(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  if (/[\p{Cc}\p{Cs}]/u.test(char)) return true;
  return (code >= 0xfdd0 && code <= 0xfdef) || (code & 0xfffe) === 0xfffe;
}

/** Zulip's channel-name rules: not blank, at most 60 characters, printable. */
export function checkStreamName(name: string): void {
  if (name.trim() === "") throw new JsonableError("Channel name can't be empty.");
  const max = REALM_SCALAR_DEFAULTS.max_stream_name_length;
  if ([...name].length > max) throw new JsonableError(`Channel name too long (limit: ${max} characters).`);
  const chars = [...name];
  const bad = chars.findIndex(isUnprintable);
  if (bad >= 0) throw new JsonableError(`Invalid character in channel name, at position ${bad + 1}.`);
}

/** `message_retention_days` as stored: null (realm default), -1 (unlimited) or a positive count. */
export function parseRetentionDays(value: string | number): number | null {
  if (value === "realm_default") return null;
  if (value === "unlimited") return -1;
  const days = typeof value === "number" ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(days) || days <= 0) throw new JsonableError(`Bad value for 'message_retention_days': ${String(value)}`);
  return days;
}

/** Only organization owners may set a channel's retention policy. */
export function checkCanSetRetention(actor: UserRow): void {
  if (actor.role !== ROLE.owner) throw new JsonableError("Must be an organization owner");
}

/** Creating a channel of a kind needs the realm's matching permission (web-public also needs spectator access on). */
export async function checkCanCreateKind(db: Db, realm: RealmRow, actor: UserRow, kind: { inviteOnly: boolean; webPublic: boolean }): Promise<void> {
  const setting = kind.inviteOnly ? "can_create_private_channel_group" : "can_create_public_channel_group";
  if (!(await hasRealmPermission(db, realm, actor, setting))) throw new JsonableError("Insufficient permission");
  if (kind.webPublic) await checkCanMakeWebPublic(db, realm, actor);
}

/** Web-public channels need the realm's spectator access and the actor's permission. */
export async function checkCanMakeWebPublic(db: Db, realm: RealmRow, actor: UserRow): Promise<void> {
  if (!realmSettings(realm).enable_spectator_access) throw new JsonableError("Web-public channels are not enabled.");
  if (!(await hasRealmPermission(db, realm, actor, "can_create_web_public_channel_group"))) throw new JsonableError("Insufficient permission");
}

/** Zulip's palette for new subscriptions; the first color the user does not use yet is chosen. */
const STREAM_ASSIGNMENT_COLORS = [
  "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
  "#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
  "#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
] as const;

/** The first palette color not in `used`; once all are used, cycles by the number used. */
export function pickColor(used: ReadonlySet<string>): string {
  const free = STREAM_ASSIGNMENT_COLORS.find((c) => !used.has(c));
  return free ?? STREAM_ASSIGNMENT_COLORS[used.size % STREAM_ASSIGNMENT_COLORS.length];
}
