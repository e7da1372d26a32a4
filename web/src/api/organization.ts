/**
 * The calls of the organization screens every user opens (each change is the server's to allow):
 * user groups (GET /user_groups is `api.userGroups`), linkifiers and custom emoji.
 */
import { call, callForm, type Params } from "./client.ts";
import type { GroupPermission, GroupSettingValue } from "./types.ts";

/** A linkifier as GET /realm/linkifiers lists it, in processing order. */
export type Linkifier = { id: number; pattern: string; url_template: string };

/** A change of a group permission setting, as PATCH /user_groups/{id} takes it. */
export type GroupSettingUpdate = Partial<Record<GroupPermission, { new: GroupSettingValue }>>;

/** The calls, by screen. */
export const organizationApi = {
  // User groups.
  createGroup: (name: string, description: string, members: number[]) => call<{ group_id: number }>("POST", "/user_groups/create", { name, description, members }),
  updateGroup: (groupId: number, params: Params) => call<object>("PATCH", `/user_groups/${groupId}`, params),
  groupMembers: (groupId: number, change: { add?: number[]; delete?: number[]; add_subgroups?: number[]; delete_subgroups?: number[] }) =>
    call<object>("POST", `/user_groups/${groupId}/members`, change),
  deactivateGroup: (groupId: number) => call<object>("POST", `/user_groups/${groupId}/deactivate`),

  // Linkifiers.
  linkifiers: () => call<{ linkifiers: Linkifier[] }>("GET", "/realm/linkifiers"),
  addLinkifier: (pattern: string, urlTemplate: string) => call<{ id: number }>("POST", "/realm/filters", { pattern, url_template: urlTemplate }),
  updateLinkifier: (id: number, pattern: string, urlTemplate: string) => call<object>("PATCH", `/realm/filters/${id}`, { pattern, url_template: urlTemplate }),
  deleteLinkifier: (id: number) => call<object>("DELETE", `/realm/filters/${id}`),
  reorderLinkifiers: (ids: number[]) => call<object>("PATCH", "/realm/linkifiers", { ordered_linkifier_ids: ids }),

  // Custom emoji (GET /realm/emoji is `api.realmEmoji`).
  addEmoji: (name: string, file: File) => {
    const form = new FormData();
    form.append("file", file, file.name);
    return callForm<object>(`/realm/emoji/${encodeURIComponent(name)}`, form);
  },
  deactivateEmoji: (name: string) => call<object>("DELETE", `/realm/emoji/${encodeURIComponent(name)}`),
};
