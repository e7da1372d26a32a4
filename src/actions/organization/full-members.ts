/**
 * The role:fullmembers system group follows the realm's waiting period: members whose accounts
 * are at least waiting_period_threshold days old (Zulip's update_users_in_full_members_system_group).
 */
import { nowSeconds } from "../../clock.ts";
import { userGroupMembersEvent } from "../../events/kinds/user-groups.ts";
import { ROLE, SYSTEM_GROUP } from "../../model/roles.ts";
import type { Db } from "../../store/schema/types.ts";
import { addMembers, directMemberIds, removeMembers, systemGroupsByName } from "../../store/groups/user-groups.ts";
import { activeUserIds, listUsers } from "../../store/users/users.ts";
import type { DoEnv } from "../context.ts";

const SECONDS_PER_DAY = 24 * 60 * 60;

/** Moves active members into or out of role:fullmembers for a new waiting period (in days), telling everyone. */
export async function doUpdateFullMembers(tx: Db, env: Pick<DoEnv, "realm" | "clock" | "emit">, thresholdDays: number): Promise<void> {
  const { realm, emit } = env;
  const group = (await systemGroupsByName(tx, realm.id)).get(SYSTEM_GROUP.fullMembers);
  if (!group) throw new Error(`realm ${realm.id} lacks ${SYSTEM_GROUP.fullMembers}`);
  const cutoff = nowSeconds(env.clock) - thresholdDays * SECONDS_PER_DAY;
  const members = (await listUsers(tx, realm.id)).filter((u) => u.is_active === 1 && u.role === ROLE.member);
  const current = new Set(await directMemberIds(tx, group.id));
  const leaving = members.filter((u) => u.date_joined > cutoff && current.has(u.id)).map((u) => u.id);
  const joining = members.filter((u) => u.date_joined <= cutoff && !current.has(u.id)).map((u) => u.id);
  const everyone = await activeUserIds(tx, realm.id);
  const removed = await removeMembers(tx, group.id, leaving);
  if (removed.length > 0) emit(userGroupMembersEvent("remove_members", group.id, removed), everyone);
  const added = await addMembers(tx, group.id, joining);
  if (added.length > 0) emit(userGroupMembersEvent("add_members", group.id, added), everyone);
}
