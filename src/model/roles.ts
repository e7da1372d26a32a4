/** User roles (Zulip's integer values) and the system groups that follow them. */

/** Zulip's role values. */
export const ROLE = {
  owner: 100,
  administrator: 200,
  moderator: 300,
  member: 400,
  guest: 600,
} as const;

/** One of the role values. */
type Role = (typeof ROLE)[keyof typeof ROLE];

const ROLE_VALUES: readonly number[] = Object.values(ROLE);

/** Whether a number is one of the five roles. */
export function isRole(value: number): value is Role {
  return ROLE_VALUES.includes(value);
}

/** CLI and display names of roles. */
export const ROLE_BY_NAME: Record<string, Role> = {
  owner: ROLE.owner,
  admin: ROLE.administrator,
  administrator: ROLE.administrator,
  moderator: ROLE.moderator,
  member: ROLE.member,
  guest: ROLE.guest,
};

/** The names of the system groups. */
export const SYSTEM_GROUP = {
  owners: "role:owners",
  administrators: "role:administrators",
  moderators: "role:moderators",
  fullMembers: "role:fullmembers",
  members: "role:members",
  everyone: "role:everyone",
  internet: "role:internet",
  nobody: "role:nobody",
} as const;

/** The name of a system group. */
export type SystemGroupName = (typeof SYSTEM_GROUP)[keyof typeof SYSTEM_GROUP];

/**
 * System groups in creation order, each with the roles whose users are its direct members and
 * the next-larger group it is a direct subgroup of (Zulip's nesting: owners ⊂ administrators ⊂
 * moderators ⊂ full members ⊂ members ⊂ everyone ⊂ internet).
 */
export const SYSTEM_GROUPS: ReadonlyArray<{ name: SystemGroupName; description: string; roles: number[]; parent: SystemGroupName | null }> = [
  { name: SYSTEM_GROUP.nobody, description: "Nobody", roles: [], parent: null },
  { name: SYSTEM_GROUP.internet, description: "Everyone on the internet", roles: [], parent: null },
  { name: SYSTEM_GROUP.everyone, description: "Everyone including guests", roles: [ROLE.guest], parent: SYSTEM_GROUP.internet },
  { name: SYSTEM_GROUP.members, description: "Everyone except guests", roles: [ROLE.member], parent: SYSTEM_GROUP.everyone },
  { name: SYSTEM_GROUP.fullMembers, description: "Members of this organization, not including new accounts and guests", roles: [ROLE.member], parent: SYSTEM_GROUP.members },
  { name: SYSTEM_GROUP.moderators, description: "Moderators of this organization, including administrators", roles: [ROLE.moderator], parent: SYSTEM_GROUP.fullMembers },
  { name: SYSTEM_GROUP.administrators, description: "Administrators of this organization, including owners", roles: [ROLE.administrator], parent: SYSTEM_GROUP.moderators },
  { name: SYSTEM_GROUP.owners, description: "Owners of this organization", roles: [ROLE.owner], parent: SYSTEM_GROUP.administrators },
];

/**
 * The system groups a user of this role is a direct member of. Members are direct members of
 * both role:members and role:fullmembers (no waiting period for full membership here).
 */
export function systemGroupsForRole(role: number): SystemGroupName[] {
  return SYSTEM_GROUPS.filter((g) => g.roles.includes(role)).map((g) => g.name);
}
