/**
 * The administration screens' state: the organization's settings (from the register snapshot,
 * kept current by `realm` events), and the channels, users, user groups and invitations, loaded
 * when a screen opens and again after each change made from it.
 */
import { computed, signal } from "@preact/signals";
import { manageApi, type Invite, type Member, type Stream } from "../api/manage.ts";
import type { GroupSettingValue, RegisterResponse, ServerEvent } from "../api/types.ts";
import { ensureGroups, inGroupSetting, isGroupSetting, userGroups } from "./groups.ts";
import { me, realmName, users } from "./store.ts";

/** The organization permissions the screen shows, with Zulip's rules: who may hold them, and whether only owners may change them. */
export const REALM_PERMISSIONS = [
  { name: "can_invite_users_group", label: "Who can send email invitations", everyone: false, ownersOnly: true },
  { name: "create_multiuse_invite_group", label: "Who can create invitation links", everyone: false, ownersOnly: true },
  { name: "can_create_public_channel_group", label: "Who can create public channels", everyone: false, ownersOnly: false },
  { name: "can_create_private_channel_group", label: "Who can create private channels", everyone: false, ownersOnly: false },
  { name: "can_add_subscribers_group", label: "Who can add others to channels", everyone: false, ownersOnly: false },
  { name: "can_delete_own_message_group", label: "Who can delete their own messages", everyone: true, ownersOnly: false },
  { name: "can_move_messages_between_topics_group", label: "Who can move messages between topics", everyone: true, ownersOnly: false },
  { name: "direct_message_permission_group", label: "Who can send direct messages", everyone: true, ownersOnly: false },
] as const;

/** The name of one of the permissions above. */
export type RealmPermission = (typeof REALM_PERMISSIONS)[number]["name"];

/** The organization's settings the screen edits. */
export type RealmSettings = { name: string; description: string; welcomeText: string; permissions: Partial<Record<RealmPermission, GroupSettingValue>> };

export const realm = signal<RealmSettings>({ name: "", description: "", welcomeText: "", permissions: {} });
/** Whether the server sends email (GET /json/session): else invitations are links to share. */
export const emailSending = signal(false);
/** Whether the user may invite others (the snapshot's can_invite_others_to_realm). */
export const canInvite = signal(false);

/** Whether email invitations can be sent: the user may, and the server mails them. */
export const canSendInvites = computed(() => canInvite.value && emailSending.value);
/** Whether the user may create reusable invitation links (false until the groups are loaded). */
export const canCreateInviteLinks = computed(() => {
  const id = me.value?.user_id;
  return id !== undefined && inGroupSetting(realm.value.permissions.create_multiuse_invite_group, id) === true;
});

export const streams = signal<readonly Stream[]>([]);
export const members = signal<readonly Member[]>([]);
export const invites = signal<readonly Invite[]>([]);

function withPermission(permissions: RealmSettings["permissions"], name: string, value: unknown): RealmSettings["permissions"] {
  const known = REALM_PERMISSIONS.find((p) => p.name === name);
  return known && isGroupSetting(value) ? { ...permissions, [known.name]: value } : permissions;
}

/** Takes the organization's settings from a register snapshot. */
export function loadRealm(state: RegisterResponse): void {
  let permissions: RealmSettings["permissions"] = {};
  for (const p of REALM_PERMISSIONS) permissions = withPermission(permissions, p.name, state[`realm_${p.name}`]);
  const description = state.realm_description;
  const welcomeText = state.realm_welcome_message_custom_text;
  realm.value = {
    name: state.realm_name,
    description: typeof description === "string" ? description : "",
    welcomeText: typeof welcomeText === "string" ? welcomeText : "",
    permissions,
  };
  canInvite.value = state.can_invite_others_to_realm;
}

function applyRealmChange(property: string, value: unknown): void {
  const current = realm.value;
  if (property === "name" && typeof value === "string") {
    realm.value = { ...current, name: value };
    realmName.value = value;
  } else if (property === "description" && typeof value === "string") {
    realm.value = { ...current, description: value };
  } else if (property === "welcome_message_custom_text" && typeof value === "string") {
    realm.value = { ...current, welcomeText: value };
  } else {
    realm.value = { ...current, permissions: withPermission(current.permissions, property, value) };
  }
}

/** Applies a `realm` event (a setting changed). */
export function applyRealmEvent(event: Extract<ServerEvent, { type: "realm" }>): void {
  if (event.op === "update") applyRealmChange(event.property, event.value);
  else for (const [property, value] of Object.entries(event.data)) applyRealmChange(property, value);
}

/** The id of a system group ("role:administrators"), once the groups are loaded. */
export function systemGroupId(name: string): number | undefined {
  for (const g of userGroups.value.values()) if (g.is_system_group && g.name === name) return g.id;
  return undefined;
}

/** The active people (not bots) outside `except`, as a select's choices by name: whom a list may add. */
export function peopleChoices(except: readonly number[]): Array<{ value: number; label: string }> {
  return [...users.value.values()]
    .filter((u) => !u.is_bot && u.is_active !== false && !except.includes(u.user_id))
    .map((u) => ({ value: u.user_id, label: u.full_name }))
    .sort((a, b) => a.label.localeCompare(b.label));
}

/** Loads the user groups (for the permission choices). */
export const loadGroups = ensureGroups;

/** Loads every channel the administrator can see, archived ones left out, by name. */
export async function loadStreams(): Promise<void> {
  const list = (await manageApi.streams()).streams.filter((s) => !s.is_archived);
  streams.value = list.sort((a, b) => a.name.localeCompare(b.name));
}

/** Loads the organization's users (deactivated ones too), by name. */
export async function loadMembers(): Promise<void> {
  const list = (await manageApi.members()).members.filter((m) => !m.is_bot);
  members.value = list.sort((a, b) => a.full_name.localeCompare(b.full_name));
}

/** Loads the open invitations. */
export async function loadInvites(): Promise<void> {
  invites.value = (await manageApi.invites()).invites;
}

/** Creates a channel (the creator is subscribed), then reloads the list. */
export async function createStream(name: string, description: string, inviteOnly: boolean): Promise<void> {
  await manageApi.createStream(name, description, inviteOnly);
  await loadStreams();
}

/** Archives a channel, then reloads the list. */
export async function archiveStream(streamId: number): Promise<void> {
  await manageApi.archiveStream(streamId);
  await loadStreams();
}

/** Sets one of a channel's permission settings to a group, then reloads the list. */
export async function setStreamPermission(streamId: number, setting: "can_send_message_group", groupId: number): Promise<void> {
  await manageApi.updateStream(streamId, { [setting]: { new: groupId } });
  await loadStreams();
}

/** A channel's subscribers' ids. */
export async function streamSubscribers(streamId: number): Promise<number[]> {
  return (await manageApi.streamMembers(streamId)).subscribers;
}

/** Subscribes a user to a channel, or unsubscribes them, then reloads the list (for the counts). */
export async function setSubscribed(stream: Stream, userId: number, subscribed: boolean): Promise<void> {
  await (subscribed ? manageApi.subscribe(stream.name, [userId]) : manageApi.unsubscribe(stream.name, [userId]));
  await loadStreams();
}

/** Changes a user's role, then reloads the list. */
export async function setRole(userId: number, role: number): Promise<void> {
  await manageApi.updateUser(userId, { role });
  await loadMembers();
}

/** Deactivates or reactivates a user, then reloads the list. */
export async function setActive(userId: number, active: boolean): Promise<void> {
  await (active ? manageApi.reactivateUser(userId) : manageApi.deactivateUser(userId));
  await loadMembers();
}

/** Sends email invitations (the server mails them when it has SMTP), then reloads the list. */
export async function inviteByEmail(emails: string, inviteAs: number, streamIds: number[]): Promise<void> {
  await manageApi.inviteByEmail(emails, inviteAs, streamIds);
  await loadInvites();
}

/** Creates a reusable invitation link and returns its URL. */
export async function createInviteLink(inviteAs: number, streamIds: number[]): Promise<string> {
  const { invite_link: link } = await manageApi.createInviteLink(inviteAs, streamIds);
  await loadInvites();
  return link;
}

/** Revokes an invitation, then reloads the list. */
export async function revokeInvite(invite: Invite): Promise<void> {
  await manageApi.revokeInvite(invite);
  await loadInvites();
}

/** Saves the organization's name and description and the permissions that changed. */
export async function saveRealm(changes: { name?: string; description?: string; welcomeText?: string; permissions: Partial<Record<RealmPermission, number>> }): Promise<void> {
  const params: Record<string, string | object> = {};
  if (changes.name !== undefined) params.name = changes.name;
  if (changes.description !== undefined) params.description = changes.description;
  if (changes.welcomeText !== undefined) params.welcome_message_custom_text = changes.welcomeText;
  for (const [name, id] of Object.entries(changes.permissions)) params[name] = { new: id };
  if (Object.keys(params).length > 0) await manageApi.updateRealm(params);
}

/** Has the Welcome Bot send the administrator `text` as new users would get it (POST /realm/test_welcome_bot_custom_message). */
export async function sendWelcomeTest(text: string): Promise<void> {
  await manageApi.testWelcomeMessage(text);
}
