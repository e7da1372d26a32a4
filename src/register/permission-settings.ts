/**
 * `server_supported_permission_settings` (FL 221, in the shape of FL 326): for every
 * group-valued permission setting of the realm, of channels and of user groups, which groups it
 * may hold and its default, so clients offer only the values the server accepts.
 */
import { GROUP_PERMISSION_SETTINGS, GROUP_SETTING_RULES } from "../permissions/group-access.ts";
import { STREAM_GROUP_SETTING_NAMES, STREAM_GROUP_SETTINGS } from "../permissions/stream-settings.ts";
import { REALM_GROUP_SETTING_DEFAULTS, REALM_GROUP_SETTING_RULES, REALM_GROUP_SETTINGS } from "../permissions/realm-settings.ts";
import { SYSTEM_GROUP } from "../model/roles.ts";

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
    // "creator" was named stream_creator_or_nobody before FL 427.
    STREAM_GROUP_SETTING_NAMES.map((name) => {
      const { default: fallback, allowEveryone } = STREAM_GROUP_SETTINGS[name];
      return [name, info({ allow_nobody_group: true, allow_everyone_group: allowEveryone, default_group_name: fallback === "creator" ? "stream_creator_or_nobody" : fallback })];
    }),
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
