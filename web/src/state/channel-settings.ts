/**
 * A channel's settings dialog: which channel it shows; the user's own settings for it (colour,
 * muting, pinning, notification overrides: POST /users/me/subscriptions/properties, whose
 * `subscription` events then update the sidebar); and, for those who administer the channel,
 * its name, description and privacy (PATCH /streams/{id}) and archiving (DELETE). What is
 * offered follows the channel's and the organization's permission groups, as upstream's
 * settings do; the server decides all the same, and its refusals reach the dialog.
 */
import { signal } from "@preact/signals";
import type { Params } from "../api/client.ts";
import { manageApi } from "../api/manage.ts";
import type { Channel, Subscription, UserSettings } from "../api/types.ts";
import { loadStreams, streams } from "./admin.ts";
import { holdsRealmPermission, refreshGroups, userHolds } from "./groups.ts";
import { isAdmin, myRole, ROLE } from "./settings.ts";
import { channels, realmSettings, setEntry, settings, subscriptions } from "./store.ts";

/** The channel whose settings are open, or null. */
export const settingsChannelId = signal<number | null>(null);

/** Opens a channel's settings; the permission checks need the groups, fetched afresh (no event tells of a new group). */
export function openChannelSettings(streamId: number): void {
  settingsChannelId.value = streamId;
  void refreshGroups();
}

/** Closes the dialog. */
export function closeChannelSettings(): void {
  settingsChannelId.value = null;
}

/** The channel as the user knows it: their subscription, or the channel they can see. */
export function channelFor(streamId: number): Channel | undefined {
  return subscriptions.value.get(streamId) ?? channels.value.get(streamId);
}

/** The per-channel notification overrides. */
export type NotificationSetting = "desktop_notifications" | "audible_notifications" | "push_notifications" | "email_notifications" | "wildcard_mentions_notify";

/** Each override, its label, and the user's setting it falls back to (null in the subscription). */
export const NOTIFICATION_SETTINGS: ReadonlyArray<{ name: NotificationSetting; label: string; fallback: keyof UserSettings }> = [
  { name: "desktop_notifications", label: "Desktop notifications", fallback: "enable_stream_desktop_notifications" },
  { name: "audible_notifications", label: "Audible notifications", fallback: "enable_stream_audible_notifications" },
  { name: "push_notifications", label: "Mobile notifications", fallback: "enable_stream_push_notifications" },
  { name: "email_notifications", label: "Email notifications", fallback: "enable_stream_email_notifications" },
  { name: "wildcard_mentions_notify", label: "Notify me of @all and @everyone mentions", fallback: "wildcard_mentions_notify" },
];

/** Whether a notification is on for the channel: its override, else the user's own setting. */
export function notificationOn(sub: Subscription, setting: (typeof NOTIFICATION_SETTINGS)[number]): boolean {
  const own = sub[setting.name];
  return typeof own === "boolean" ? own : settings.value[setting.fallback] === true;
}

/** A personal subscription setting. */
export type SubscriptionSetting = "color" | "is_muted" | "pin_to_top" | NotificationSetting;

/** Saves one of the user's settings for a channel: applied here at once (its event confirms it), put back if the server refuses. */
export async function setSubscriptionSetting(streamId: number, property: SubscriptionSetting, value: boolean | string): Promise<void> {
  const before = subscriptions.value.get(streamId);
  if (before !== undefined) setEntry(subscriptions, streamId, { ...before, [property]: value });
  try {
    await manageApi.subscriptionProperty(streamId, property, value);
  } catch (err) {
    const now = subscriptions.value.get(streamId);
    if (before !== undefined && now !== undefined) setEntry(subscriptions, streamId, { ...now, [property]: before[property] });
    throw err;
  }
}

/** A channel's privacy, as upstream offers it. */
export type Privacy = "public" | "private-shared" | "private-protected" | "web-public";

/** The privacy choices, widest audience last, with their labels and PATCH /streams parameters. */
export const PRIVACY: ReadonlyArray<{ value: Privacy; label: string; params: { is_private: boolean; history_public_to_subscribers: boolean; is_web_public: boolean } }> = [
  { value: "private-protected", label: "Private, protected history (subscribers see messages sent after they joined)", params: { is_private: true, history_public_to_subscribers: false, is_web_public: false } },
  { value: "private-shared", label: "Private, shared history (subscribers see the whole history)", params: { is_private: true, history_public_to_subscribers: true, is_web_public: false } },
  { value: "public", label: "Public (members can join and read it)", params: { is_private: false, history_public_to_subscribers: true, is_web_public: false } },
  { value: "web-public", label: "Web-public (anyone on the internet can read it)", params: { is_private: false, history_public_to_subscribers: true, is_web_public: true } },
];

/** A channel's current privacy. */
export function privacyOf(channel: Channel): Privacy {
  if (channel.is_web_public === true) return "web-public";
  if (!channel.invite_only) return "public";
  return channel.history_public_to_subscribers === false ? "private-protected" : "private-shared";
}

/** Whether the user may give a channel this privacy: upstream asks for the permission to create such channels. */
function mayChoosePrivacy(privacy: Privacy): boolean {
  if (privacy === "public") return holdsRealmPermission("can_create_public_channel_group");
  if (privacy === "web-public") return realmSettings.value.realm_enable_spectator_access === true && holdsRealmPermission("can_create_web_public_channel_group");
  return holdsRealmPermission("can_create_private_channel_group");
}

/** The privacy choices offered for a channel: its current one and those the user may give it. */
export function privacyChoices(channel: Channel): typeof PRIVACY {
  const current = privacyOf(channel);
  return PRIVACY.filter((p) => p.value === current || mayChoosePrivacy(p.value));
}

/** Whether the user may change the channel's settings: administrators, and the channel's can_administer_channel_group (never guests). */
export function canAdministerChannel(channel: Channel): boolean {
  if (isAdmin.value) return true;
  return myRole.value !== ROLE.guest && userHolds(channel.can_administer_channel_group);
}

/** The administrators' channel list, reloaded after a change when it was loaded. */
async function reloadAdminList(): Promise<void> {
  if (streams.value.length > 0) await loadStreams();
}

/** Saves a channel's changed name, description and privacy (only what changed is sent). */
export async function saveChannel(streamId: number, changes: { name?: string; description?: string; privacy?: Privacy }): Promise<void> {
  const params: Params = {};
  if (changes.name !== undefined) params.new_name = changes.name;
  if (changes.description !== undefined) params.description = changes.description;
  const privacy = PRIVACY.find((p) => p.value === changes.privacy);
  if (privacy !== undefined) Object.assign(params, privacy.params);
  if (Object.keys(params).length === 0) return;
  await manageApi.updateStream(streamId, params);
  await reloadAdminList();
}

/** Archives a channel and closes its settings. */
export async function archiveChannel(streamId: number): Promise<void> {
  await manageApi.archiveStream(streamId);
  closeChannelSettings();
  await reloadAdminList();
}
