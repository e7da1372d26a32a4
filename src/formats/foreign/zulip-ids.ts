/**
 * The ids a foreign organization gets in the Zulip export made of it, assigned in order: the
 * organization 1, people 1..n in the reader's order, channels 1..n, Zulip's system groups, and
 * recipient rows (each person's personal one, then each channel's, then each group
 * conversation's, as met). Also Zulip's constants the converter writes: role numbers, system
 * groups and their nesting, recipient types.
 */
import type { ForeignOrganization, ForeignRole } from "./organization.ts";

export const REALM_ID = 1;

/** Zulip's UserProfile role numbers. */
export const ZULIP_ROLE: Readonly<Record<ForeignRole, number>> = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 };

/** Zulip's recipient types. */
export const RECIPIENT = { personal: 1, stream: 2, directGroup: 3 } as const;

/** Zulip's system groups, smallest first, each with the roles directly in it; each is a subgroup of the next. */
export const SYSTEM_GROUPS: ReadonlyArray<{ name: string; roles: ForeignRole[] }> = [
  { name: "role:owners", roles: ["owner"] },
  { name: "role:administrators", roles: ["administrator"] },
  { name: "role:moderators", roles: ["moderator"] },
  { name: "role:fullmembers", roles: ["member"] },
  { name: "role:members", roles: ["member"] },
  { name: "role:everyone", roles: ["guest"] },
  { name: "role:internet", roles: [] },
  { name: "role:nobody", roles: [] },
];

/** The ids of one conversion. */
export class ZulipIds {
  readonly users = new Map<string, number>();
  readonly channels = new Map<string, number>();
  /** Personal recipient of each user id. */
  readonly personal = new Map<number, number>();
  readonly channelRecipient = new Map<number, number>();
  /** Group conversations by sorted member ids: their group id and recipient. */
  readonly groups = new Map<string, { id: number; recipient: number; members: number[] }>();
  #nextRecipient = 1;

  constructor(org: ForeignOrganization) {
    org.users.forEach((u, i) => this.users.set(u.key, i + 1));
    for (const id of this.users.values()) this.personal.set(id, this.#nextRecipient++);
    org.channels.forEach((c, i) => {
      this.channels.set(c.key, i + 1);
      this.channelRecipient.set(i + 1, this.#nextRecipient++);
    });
  }

  /** The recipient of a direct message among `memberIds` from `senderId`: a personal one for two people or one, a group conversation's for more. */
  direct(senderId: number, memberIds: readonly number[]): number {
    const members = [...new Set([...memberIds, senderId])].sort((a, b) => a - b);
    if (members.length <= 2) return this.personal.get(members.find((m) => m !== senderId) ?? senderId)!;
    const key = members.join(",");
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { id: this.groups.size + 1, recipient: this.#nextRecipient++, members }));
    return group.recipient;
  }
}
