/**
 * The realm's permission settings as PATCH /realm changes them (Zulip's update_realm with
 * access_user_group_for_setting): `{new, old?}` changes checked against each setting's rule,
 * stored as group ids, and the anonymous groups they replace dropped once nothing uses them.
 */
import { JsonableError } from "../../errors.ts";
import { presentGroupSetting, sameGroupSetting, storeGroupSetting, type GroupSettingValue } from "../../permissions/group-setting.ts";
import { REALM_GROUP_SETTING_RULES, REALM_GROUP_SETTINGS, type RealmGroupSetting, type RealmSettings } from "../../permissions/realm-settings.ts";
import { SYSTEM_GROUP } from "../../model/roles.ts";
import type { UserGroupRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { getGroup, systemGroupsByName } from "../../store/groups/user-groups.ts";
import type { DoEnv } from "../context.ts";
import { dropUnusedAnonymousGroups } from "../groups/settings.ts";

/** A requested change: the new value, and optionally the value the client believes is current. */
export type GroupSettingChange = { new: GroupSettingValue; old?: GroupSettingValue };

/** A change stored: the setting, its new group id and API value, the value asked for, and the group it replaced. */
type StoredGroupSetting = { setting: RealmGroupSetting; groupId: number; apiValue: GroupSettingValue; requested: GroupSettingValue; previousId: number };

/** Zulip's parse_group_setting_value: one subgroup and no members is that group; nothing at all is role:nobody. */
function canonical(value: GroupSettingValue, nobodyId: number): GroupSettingValue {
  if (typeof value === "number" || value.direct_members.length > 0 || value.direct_subgroups.length > 1) return value;
  return value.direct_subgroups[0] ?? nobodyId;
}

/** Zulip's check_setting_configuration_for_system_groups, for a named group. */
function checkNamedGroup(setting: RealmGroupSetting, group: UserGroupRow & { name: string }): void {
  const rule = REALM_GROUP_SETTING_RULES[setting];
  if (rule.systemGroups && group.is_system_group !== 1) throw new JsonableError(`'${setting}' must be a system user group.`);
  const refused = (name: string) => new JsonableError(`'${setting}' setting cannot be set to '${name}' group.`);
  if (group.name === SYSTEM_GROUP.internet) throw refused(group.name);
  if (!rule.allowNobody && group.name === SYSTEM_GROUP.nobody) throw refused(group.name);
  if (!rule.allowEveryone && group.name === SYSTEM_GROUP.everyone) throw refused(group.name);
  if (rule.systemGroups && !rule.systemGroups.some((name) => name === group.name)) throw refused(group.name);
}

/** Checks a new value against the setting's rule and stores it; returns the group id to keep. */
async function storeValue(tx: Db, realmId: number, setting: RealmGroupSetting, value: GroupSettingValue): Promise<number> {
  if (typeof value === "number") {
    const group = await getGroup(tx, realmId, value);
    if (!group || group.name === null) throw new JsonableError(`Invalid user group ID: ${value}`);
    if (group.deactivated === 1) throw new JsonableError("User group is deactivated.");
    checkNamedGroup(setting, { ...group, name: group.name });
  } else if (REALM_GROUP_SETTING_RULES[setting].systemGroups) {
    throw new JsonableError(`'${setting}' must be a system user group.`);
  }
  return storeGroupSetting(tx, realmId, value, { setting });
}

/**
 * Checks and stores the requested changes, in the order of the settings: an `old` that is not
 * the current value is refused; a new value equal to the current one changes nothing.
 */
export async function storeGroupSettingChanges(
  tx: Db,
  realmId: number,
  current: RealmSettings,
  changes: Partial<Record<RealmGroupSetting, GroupSettingChange>>,
): Promise<StoredGroupSetting[]> {
  if (!REALM_GROUP_SETTINGS.some((setting) => changes[setting] !== undefined)) return [];
  const nobodyId = (await systemGroupsByName(tx, realmId)).get(SYSTEM_GROUP.nobody)?.id;
  if (nobodyId === undefined) throw new Error(`realm ${realmId} lacks ${SYSTEM_GROUP.nobody}`);
  const out: StoredGroupSetting[] = [];
  for (const setting of REALM_GROUP_SETTINGS) {
    const change = changes[setting];
    if (!change) continue;
    const currentValue = await presentGroupSetting(tx, realmId, current[setting]);
    if (change.old !== undefined && !sameGroupSetting(currentValue, canonical(change.old, nobodyId))) {
      throw new JsonableError("'old' value does not match the expected value.");
    }
    const requested = canonical(change.new, nobodyId);
    if (sameGroupSetting(currentValue, requested)) continue;
    const groupId = await storeValue(tx, realmId, setting, requested);
    out.push({ setting, groupId, apiValue: await presentGroupSetting(tx, realmId, groupId), requested, previousId: current[setting] });
  }
  return out;
}

/** Once the realm's new settings are written: drops the anonymous groups the changes replaced, if nothing else uses them. */
export async function doDropReplacedSettingGroups(tx: Db, env: Pick<DoEnv, "realm">, stored: readonly StoredGroupSetting[]): Promise<void> {
  if (stored.length > 0) await dropUnusedAnonymousGroups(tx, env.realm, stored.map((s) => s.previousId));
}
