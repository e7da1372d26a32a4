/** user_group events. Membership changes are sent to every active user of the realm. */

/** Users joined or left a group's direct members. */
export type UserGroupMembersEvent = { type: "user_group"; op: "add_members" | "remove_members"; group_id: number; user_ids: number[] };

/** The event for users added to (`add_members`) or removed from (`remove_members`) a group. */
export function userGroupMembersEvent(op: UserGroupMembersEvent["op"], groupId: number, userIds: number[]): UserGroupMembersEvent {
  return { type: "user_group", op, group_id: groupId, user_ids: userIds };
}
