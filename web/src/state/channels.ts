/**
 * Channels for everyone: browsing the channels the user can see, joining and leaving them,
 * creating one where the organization lets the user, and the organization's default channels
 * (which new users join, and the invitation form checks to begin with). The sidebar follows the
 * server's subscription events, not these calls' answers.
 */
import { computed, signal } from "@preact/signals";
import { manageApi } from "../api/manage.ts";
import type { Channel, RegisterResponse } from "../api/types.ts";
import { channels, subscriptions } from "./store.ts";

/** The organization's default channels' ids. */
export const defaultChannelIds = signal<readonly number[]>([]);
/** Whether the user may create public and private channels (the snapshot's can_create_*_streams). */
export const canCreatePublic = signal(false);
export const canCreatePrivate = signal(false);
/** Whether the channel browser is open. */
export const browserOpen = signal(false);

/** A channel as the browser lists it: with whether the user is subscribed. */
export type BrowsedChannel = Channel & { subscribed: boolean };

/** The channels the user can see and that are not archived, by name. */
export const browsableChannels = computed<readonly BrowsedChannel[]>(() =>
  [...channels.value.values()]
    .filter((c) => !c.is_archived)
    .map((c) => ({ ...c, subscribed: subscriptions.value.has(c.stream_id) }))
    .sort((a, b) => a.name.localeCompare(b.name)),
);

/** Takes the default channels and the creation rights from a register snapshot. */
export function loadChannelRights(state: RegisterResponse): void {
  const ids = state.realm_default_streams;
  defaultChannelIds.value = Array.isArray(ids) ? ids.filter((id): id is number => typeof id === "number") : [];
  canCreatePublic.value = state.can_create_public_streams === true;
  canCreatePrivate.value = state.can_create_private_streams === true;
}

/** Whether the user is subscribed to a channel. */
export function isSubscribed(streamId: number): boolean {
  return subscriptions.value.has(streamId);
}

/** Subscribes the user to a channel; rejects with the server's error. */
export async function joinChannel(streamId: number): Promise<void> {
  const channel = channels.value.get(streamId);
  if (channel !== undefined) await manageApi.join(channel.name);
}

/** Unsubscribes the user from a channel; rejects with the server's error. */
export async function leaveChannel(streamId: number): Promise<void> {
  const channel = channels.value.get(streamId);
  if (channel !== undefined) await manageApi.leave(channel.name);
}

/** Creates a channel (the creator is subscribed to it); rejects with the server's error. */
export async function createChannel(name: string, description: string, inviteOnly: boolean): Promise<void> {
  await manageApi.createStream(name, description, inviteOnly);
}

/** Opens or closes the channel browser. */
export function showBrowser(open: boolean): void {
  browserOpen.value = open;
}
