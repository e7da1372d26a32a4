/** Table types of user groups (listed in schema.ts's Database). */
import type { Generated } from "kysely";
import type { Flag } from "./realm.ts";

/** User groups: named, system, and the anonymous ones behind group-setting values. */
export interface UserGroupTable {
  id: Generated<number>;
  realm_id: number;
  /** Null for the anonymous groups that hold `{direct_members, direct_subgroups}` setting values. */
  name: string | null;
  description: string;
  is_system_group: Flag;
  deactivated: Flag;
  date_created: number | null;
  creator_id: number | null;
  can_add_members_group_id: number | null;
  can_join_group_id: number | null;
  can_leave_group_id: number | null;
  can_manage_group_id: number | null;
  can_mention_group_id: number | null;
  can_remove_members_group_id: number | null;
}

/** Direct members of user groups. */
export interface UserGroupMemberTable {
  group_id: number;
  user_id: number;
}

/** Direct subgroups of user groups. */
export interface UserGroupSubgroupTable {
  supergroup_id: number;
  subgroup_id: number;
}
