/**
 * A team's people and channels from a Mattermost export, in the shared model's terms.
 *
 * People: the team's members, active unless Mattermost deactivated them (`delete_at`), and,
 * deactivated, everyone else whose messages or conversations come across (they left the team, or
 * were on none, as upstream's converter's "mirror dummies"). Roles: a system admin is an owner, a
 * team admin an administrator, a system or team guest a guest, anyone else a member; a team
 * without a system admin among its active members has its team admins as owners instead, so that
 * the organization has an owner. Names: first and last name, else the nickname, else the username.
 */
import type { ForeignChannel, ForeignRole, ForeignUser } from "../foreign/organization.ts";
import type { ChannelLine, UserLine } from "./lines.ts";

function teamRoles(user: UserLine, team: string): string[] | null {
  const membership = user.teams.find((t) => t.name === team);
  return membership === undefined ? null : membership.roles.split(/\s+/);
}

function roleOf(user: UserLine, team: string): ForeignRole {
  const system = user.roles.split(/\s+/);
  const inTeam = teamRoles(user, team) ?? [];
  if (system.includes("system_admin")) return "owner";
  if (inTeam.includes("team_admin")) return "administrator";
  if (system.includes("system_guest") || inTeam.includes("team_guest")) return "guest";
  return "member";
}

export function fullNameOf(user: UserLine): string {
  const name = `${user.first_name} ${user.last_name}`.trim();
  return name || user.nickname.trim() || user.username;
}

/** Whether the user is one of the team's members. */
export function inTeam(user: UserLine, team: string): boolean {
  return teamRoles(user, team) !== null;
}

/**
 * The people of `team`, members first in the export's order, then `others` (usernames of
 * non-members whose messages come across) as deactivated people. `joinedFallback`: the date
 * joined of people whose line has no `create_at` (UNIX seconds).
 */
export function teamPeople(users: ReadonlyMap<string, UserLine>, team: string, others: ReadonlySet<string>, joinedFallback: number): ForeignUser[] {
  const emails = new Set<string>();
  const person = (user: UserLine, member: boolean): ForeignUser => {
    let email = user.email.trim();
    if (email === "" || emails.has(email.toLowerCase())) email = `${user.username}@${team}.invalid`;
    emails.add(email.toLowerCase());
    return {
      key: user.username,
      fullName: fullNameOf(user),
      email,
      role: member ? roleOf(user, team) : "member",
      isActive: member && user.delete_at === 0,
      timezone: "",
      dateJoined: user.create_at > 0 ? Math.floor(user.create_at / 1000) : joinedFallback,
    };
  };
  const members = [...users.values()].filter((u) => inTeam(u, team)).map((u) => person(u, true));
  if (!members.some((p) => p.isActive && p.role === "owner")) {
    for (const p of members) if (p.isActive && p.role === "administrator") p.role = "owner";
  }
  const rest = [...users.values()].filter((u) => !inTeam(u, team) && others.has(u.username)).map((u) => person(u, false));
  return [...members, ...rest];
}

/** Channels everyone joining the team joins in Mattermost. */
const DEFAULT_CHANNELS = new Set(["town-square", "off-topic"]);

/**
 * The team's channels, named by their display names (made unique without case by adding the
 * Mattermost name in parentheses), subscribed by the members whose team membership lists them.
 */
export function teamChannels(
  channels: readonly ChannelLine[], users: ReadonlyMap<string, UserLine>, team: string, createdOf: (name: string) => number,
): ForeignChannel[] {
  const taken = new Set<string>();
  return channels.filter((c) => c.team === team).map((c) => {
    let name = (c.display_name.trim() || c.name).slice(0, 60);
    if (taken.has(name.toLowerCase())) name = `${name.slice(0, 57 - c.name.length)} (${c.name})`;
    taken.add(name.toLowerCase());
    const memberKeys = [...users.values()]
      .filter((u) => u.teams.some((t) => t.name === team && t.channels.some((m) => m.name === c.name)))
      .map((u) => u.username);
    return {
      key: c.name,
      name,
      description: c.purpose || c.header,
      isPrivate: c.type === "P",
      isArchived: c.deleted_at > 0,
      created: createdOf(c.name),
      creatorKey: null,
      memberKeys,
      isDefault: DEFAULT_CHANNELS.has(c.name),
    };
  });
}
