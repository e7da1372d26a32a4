/**
 * `server_supported_permission_settings` (FL 221, in the shape of FL 326): for every
 * group-valued permission setting of the realm, of channels and of user groups, which groups it
 * may hold and its default, so clients offer only the values the server accepts.
 */
import { GROUP_PERMISSION_SETTINGS, GROUP_SETTING_RULES } from "../permissions/group-access.ts";
import { REALM_GROUP_SETTING_DEFAULTS, REALM_GROUP_SETTING_RULES, REALM_GROUP_SETTINGS } from "../permissions/realm-settings.ts";
import { SYSTEM_GROUP, type SystemGroupName } from "../store/roles.ts";

/** One setting's description (Zulip's GroupPermissionSetting). */
type PermissionSettingInfo = {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  /** Only group-level settings have one: the value a system group's own setting takes. */
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
};

/**
 * Channel settings: default and whether role:everyone may hold them, as
 * actions/channels/settings.ts enforces (every one allows role:nobody). "creator" is an
 * anonymous group of the channel's creator, named `stream_creator_or_nobody` before FL 427.
 */
const STREAM_SETTINGS: ReadonlyArray<readonly [string, SystemGroupName | "creator", boolean]> = [
  ["can_add_subscribers_group", SYSTEM_GROUP.nobody, false],
  ["can_administer_channel_group", "creator", false],
  ["can_delete_any_message_group", SYSTEM_GROUP.nobody, true],
  ["can_delete_own_message_group", SYSTEM_GROUP.nobody, true],
  ["can_move_messages_out_of_channel_group", SYSTEM_GROUP.nobody, true],
  ["can_move_messages_within_channel_group", SYSTEM_GROUP.nobody, true],
  ["can_remove_subscribers_group", SYSTEM_GROUP.administrators, false],
  ["can_resolve_topics_group", SYSTEM_GROUP.nobody, true],
  ["can_send_message_group", SYSTEM_GROUP.everyone, true],
  ["can_subscribe_group", SYSTEM_GROUP.nobody, false],
];

function info(fields: Partial<PermissionSettingInfo> & Pick<PermissionSettingInfo, "allow_nobody_group" | "allow_everyone_group" | "default_group_name">): PermissionSettingInfo {
  return { require_system_group: false, allow_internet_group: false, default_for_system_groups: null, allowed_system_groups: [], ...fields };
}

function realmSettingsInfo(): Record<string, PermissionSettingInfo> {
  return Object.fromEntries(
    REALM_GROUP_SETTINGS.map((name) => {
      const rule = REALM_GROUP_SETTING_RULES[name];
      return [
        name,
        info({
          require_system_group: rule.systemGroups !== undefined,
          allow_nobody_group: rule.allowNobody,
          allow_everyone_group: rule.allowEveryone,
          default_group_name: REALM_GROUP_SETTING_DEFAULTS[name],
          allowed_system_groups: [...(rule.systemGroups ?? [])],
        }),
      ];
    }),
  );
}

function streamSettingsInfo(): Record<string, PermissionSettingInfo> {
  return Object.fromEntries(
    STREAM_SETTINGS.map(([name, fallback, everyone]) => [
      name,
      info({ allow_nobody_group: true, allow_everyone_group: everyone, default_group_name: fallback === "creator" ? "stream_creator_or_nobody" : fallback }),
    ]),
  );
}

function groupSettingsInfo(): Record<string, PermissionSettingInfo> {
  return Object.fromEntries(
    GROUP_PERMISSION_SETTINGS.map((name) => {
      const rule = GROUP_SETTING_RULES[name];
      return [
        name,
        info({
          allow_nobody_group: !rule.forbidden.includes(SYSTEM_GROUP.nobody),
          allow_everyone_group: !rule.forbidden.includes(SYSTEM_GROUP.everyone),
          default_group_name: rule.default === "creator" ? "group_creator" : rule.default,
          // System groups' own settings are not editable; they hold role:nobody (as Zulip).
          default_for_system_groups: SYSTEM_GROUP.nobody,
        }),
      ];
    }),
  );
}

/** The snapshot value; the same for every request, so built once. */
export const SERVER_SUPPORTED_PERMISSION_SETTINGS = Object.freeze({ realm: realmSettingsInfo(), stream: streamSettingsInfo(), group: groupSettingsInfo() });
