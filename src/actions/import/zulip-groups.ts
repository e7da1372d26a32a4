/**
 * User groups: every UserGroup of the export under its id, named ones (NamedUserGroup: system
 * groups, whose names are Parley's own, and the organization's groups) and the anonymous ones
 * that hold group-setting values; their direct members and subgroups (nesting kept); then each
 * named group's permission settings, which may name any group, itself included.
 */
import { GROUP_PERMISSION_SETTINGS, GROUP_SETTING_RULES, groupSettingColumn } from "../../permissions/group-access.ts";
import { SYSTEM_GROUP } from "../../model/roles.ts";
import { insertRows } from "../../store/import/bulk-insert.ts";
import { updateGroup } from "../../store/groups/user-groups.ts";
import type { ZulipExport } from "../../formats/zulip/export-reader.ts";
import { groupMemberRow, namedGroupRow, subgroupRow, userGroupRow, type Row } from "../../formats/zulip/rows.ts";
import { count, flag, refuse, seconds, type ImportEnv } from "./import-env.ts";
import type { ZulipImportState } from "./zulip-state.ts";

/** The group-setting columns of a named group: the export's value, or Parley's default for a setting Zulip's version lacked. */
function settingColumns(group: Row<typeof namedGroupRow>, state: ZulipImportState): Record<string, number> {
  const out: Record<string, number> = {};
  for (const setting of GROUP_PERMISSION_SETTINGS) {
    const value = group[setting];
    if (typeof value === "number") {
      if (!state.groupIds.has(value)) refuse(`user group ${group.id}'s ${setting} names group ${value}, which the export does not hold`);
      out[groupSettingColumn(setting)] = value;
      continue;
    }
    const fallback = GROUP_SETTING_RULES[setting].default;
    const id = state.systemGroups.get(fallback === "creator" ? SYSTEM_GROUP.nobody : fallback);
    if (id === undefined) refuse(`the export lacks the system group ${fallback}`);
    out[groupSettingColumn(setting)] = id;
  }
  return out;
}

/** Writes the groups, their members and subgroups, then the named groups' settings. */
export async function writeGroups(env: ImportEnv, source: ZulipExport, state: ZulipImportState): Promise<void> {
  const groups = await source.all("realm", "zerver_usergroup", userGroupRow);
  const named = new Map((await source.all("realm", "zerver_namedusergroup", namedGroupRow)).map((g) => [g.id, g]));
  for (const g of groups) state.groupIds.add(g.id);
  for (const g of named.values()) {
    if (!state.groupIds.has(g.id)) refuse(`named user group ${g.id} (${g.name}) has no zerver_usergroup row`);
    if (g.is_system_group) state.systemGroups.set(g.name, g.id);
    if (g.creator !== null && !state.users.has(g.creator)) refuse(`user group ${g.id} names creator ${g.creator}, who is not in the export`);
  }
  const missing = state.missingSystemGroups();
  if (missing.length > 0) refuse(`the export lacks the system groups ${missing.join(", ")}`);
  await insertRows(
    env.tx,
    "user_groups",
    groups.map((g) => {
      const n = named.get(g.id);
      return {
        id: g.id,
        realm_id: env.realmId,
        name: n?.name ?? null,
        description: n?.description ?? "",
        is_system_group: flag(n?.is_system_group ?? false),
        deactivated: flag(n?.deactivated ?? false),
        date_created: n?.date_created === null || n === undefined ? null : seconds(n.date_created),
        creator_id: n?.creator ?? null,
      };
    }),
  );
  const members = await source.all("realm", "zerver_usergroupmembership", groupMemberRow);
  for (const m of members) {
    if (!state.groupIds.has(m.user_group)) refuse(`group membership ${m.id} names group ${m.user_group}, which the export does not hold`);
    if (!state.users.has(m.user_profile)) refuse(`group membership ${m.id} names user ${m.user_profile}, who is not in the export`);
  }
  await insertRows(env.tx, "user_group_members", members.map((m) => ({ group_id: m.user_group, user_id: m.user_profile })));
  const subgroups = await source.all("realm", "zerver_groupgroupmembership", subgroupRow);
  for (const s of subgroups) {
    if (!state.groupIds.has(s.supergroup) || !state.groupIds.has(s.subgroup)) refuse(`subgroup row ${s.id} names a group the export does not hold`);
  }
  await insertRows(env.tx, "user_group_subgroups", subgroups.map((s) => ({ supergroup_id: s.supergroup, subgroup_id: s.subgroup })));
  for (const g of named.values()) await updateGroup(env.tx, env.realmId, g.id, settingColumns(g, state));
  count(env, "user groups", [...named.values()].filter((g) => !g.is_system_group).length);
  env.log(`user groups: ${named.size} named (${state.systemGroups.size} system), ${groups.length - named.size} holding settings`);
}
