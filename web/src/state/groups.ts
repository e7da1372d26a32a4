/**
 * The organization's user groups (GET /user_groups), fetched when first needed (the mention
 * autocomplete, the message actions' permission checks) and again when older than a minute,
 * since the app's event queue does not ask for group events. Also answers whether a user is
 * in a group-setting value (Zulip's recursive group membership).
 */
import { signal } from "@preact/signals";
import { api } from "../api/client.ts";
import type { GroupSettingValue, UserGroup } from "../api/types.ts";

/** Groups are fetched again after this long, in ms. */
const STALE_AFTER_MS = 60_000;

/** The groups by id (empty until fetched). */
export const userGroups = signal<ReadonlyMap<number, UserGroup>>(new Map());
/** Whether the groups were fetched at least once. */
export const groupsLoaded = signal(false);

let fetchedAt = 0;
let pending: Promise<void> | null = null;

/** Fetches the groups unless a recent copy is there. */
export function ensureGroups(): Promise<void> {
  if (Date.now() - fetchedAt < STALE_AFTER_MS) return Promise.resolve();
  pending ??= api.userGroups().then(
    (res) => {
      fetchedAt = Date.now();
      pending = null;
      userGroups.value = new Map(res.user_groups.map((g) => [g.id, g]));
      groupsLoaded.value = true;
    },
    () => {
      pending = null;
    },
  );
  return pending;
}

function inGroup(groupId: number, userId: number, seen: Set<number>): boolean {
  if (seen.has(groupId)) return false;
  seen.add(groupId);
  const group = userGroups.value.get(groupId);
  if (group === undefined) return false;
  return group.members.includes(userId) || group.direct_subgroup_ids.some((id) => inGroup(id, userId, seen));
}

/** Whether a user is in a group-setting value; null while the groups are not loaded. */
export function inGroupSetting(value: GroupSettingValue | undefined, userId: number): boolean | null {
  if (value === undefined || !groupsLoaded.value) return null;
  if (typeof value === "number") return inGroup(value, userId, new Set());
  const seen = new Set<number>();
  return value.direct_members.includes(userId) || value.direct_subgroups.some((id) => inGroup(id, userId, seen));
}
