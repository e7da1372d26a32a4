/**
 * The organization's user groups (GET /user_groups), fetched when first needed (the mention
 * autocomplete, the message actions' permission checks) and again when older than a minute,
 * since the app's event queue does not ask for group events. Also answers whether a user is
 * in a group-setting value (Zulip's recursive group membership).
 */
import { signal } from "@preact/signals";
import { api } from "../api/client.ts";
import type { GroupSettingValue, UserGroup } from "../api/types.ts";
import { me, realmSettings } from "./store.ts";

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

/** Fetches the groups now (after a change to them: the event queue brings no group events). */
export async function refreshGroups(): Promise<void> {
  // A fetch under way may have started before the change.
  if (pending !== null) await pending;
  fetchedAt = 0;
  await ensureGroups();
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

/** Whether a value is a group-setting value (a group's id, or an anonymous group). */
export function isGroupSetting(value: unknown): value is GroupSettingValue {
  return typeof value === "number" || (typeof value === "object" && value !== null && "direct_members" in value);
}

/** Whether the signed-in user is in a group-setting value (false while the groups are not loaded, or for anything else). */
export function userHolds(value: unknown): boolean {
  const id = me.value?.user_id;
  return id !== undefined && isGroupSetting(value) && inGroupSetting(value, id) === true;
}

/** Whether the signed-in user holds one of the organization's permission settings ("can_create_groups": the snapshot's realm_can_create_groups). */
export function holdsRealmPermission(name: string): boolean {
  return userHolds(realmSettings.value[`realm_${name}`]);
}
