/**
 * What the user muted or follows: each topic's visibility policy (the snapshot's `user_topics`,
 * `user_topic` events; set with POST /user_topics) and the muted users (`muted_users`, set with
 * POST and DELETE /users/me/muted_users/{id}). As upstream: a topic is muted when its policy
 * says so, or when its channel is muted and the topic is not unmuted or followed; muted topics
 * leave the combined feed and the unread counts, and muted users' messages are collapsed. The
 * calls' effects arrive as events (the server sends the whole new state), not from their answers.
 */
import { signal } from "@preact/signals";
import { actionsApi } from "../api/message-actions.ts";
import type { Message, MutedUser, RegisterResponse, UserTopic } from "../api/types.ts";
import { subscriptions } from "./store.ts";

/** Zulip's visibility_policy values. */
export const VISIBILITY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

/** Topic policies by `${streamId}\n${lowercased topic}` (inherit is left out). */
const policies = signal<ReadonlyMap<string, number>>(new Map());
/** The ids of the users the user muted. */
export const mutedUsers = signal<ReadonlySet<number>>(new Set());

function policyKey(streamId: number, topic: string): string {
  return `${streamId}\n${topic.toLowerCase()}`;
}

/** Takes the topic policies and muted users from a register snapshot. */
export function loadMuting(state: RegisterResponse): void {
  policies.value = new Map((state.user_topics ?? []).filter((t) => t.visibility_policy !== VISIBILITY.inherit).map((t) => [policyKey(t.stream_id, t.topic_name), t.visibility_policy]));
  mutedUsers.value = new Set((state.muted_users ?? []).map((u) => u.id));
}

/** A `user_topic` event: one topic's policy changed. */
export function applyUserTopic(t: UserTopic): void {
  const next = new Map(policies.value);
  if (t.visibility_policy === VISIBILITY.inherit) next.delete(policyKey(t.stream_id, t.topic_name));
  else next.set(policyKey(t.stream_id, t.topic_name), t.visibility_policy);
  policies.value = next;
}

/** A `muted_users` event: the whole new list. */
export function applyMutedUsers(list: readonly MutedUser[]): void {
  mutedUsers.value = new Set(list.map((u) => u.id));
}

/** A topic's own policy (VISIBILITY.inherit when none is set). */
export function topicPolicy(streamId: number, topic: string): number {
  return policies.value.get(policyKey(streamId, topic)) ?? VISIBILITY.inherit;
}

/** Whether the channel is muted for the user. */
export function channelMuted(streamId: number): boolean {
  return subscriptions.value.get(streamId)?.is_muted === true;
}

/** Whether a topic is muted: by its policy, or by its channel's muting when the topic is not unmuted or followed. */
export function isTopicMuted(streamId: number, topic: string): boolean {
  const policy = topicPolicy(streamId, topic);
  if (policy === VISIBILITY.muted) return true;
  return channelMuted(streamId) && policy !== VISIBILITY.unmuted && policy !== VISIBILITY.followed;
}

/** Whether the user follows a topic. */
export function isFollowed(streamId: number, topic: string): boolean {
  return topicPolicy(streamId, topic) === VISIBILITY.followed;
}

/** Whether a channel message sits in a muted topic (the combined feed leaves it out). */
export function inMutedTopic(message: Pick<Message, "type" | "stream_id" | "subject">): boolean {
  return message.type === "stream" && message.stream_id !== undefined && isTopicMuted(message.stream_id, message.subject);
}

/** Whether the user muted someone. */
export function isUserMuted(userId: number): boolean {
  return mutedUsers.value.has(userId);
}

/** Sets a topic's policy; rejects with the server's error. */
export async function setTopicPolicy(streamId: number, topic: string, policy: number): Promise<void> {
  await actionsApi.setTopicPolicy(streamId, topic, policy);
}

/**
 * Mutes or unmutes a topic (the `m` key and the topic menu, as upstream): in a muted channel,
 * unmuting sets "unmuted" (the channel's muting would hide it again) and muting goes back to
 * the channel's default; elsewhere muting sets "muted" and unmuting the default.
 */
export async function toggleTopicMute(streamId: number, topic: string): Promise<void> {
  const muted = isTopicMuted(streamId, topic);
  const policy = channelMuted(streamId) ? (muted ? VISIBILITY.unmuted : VISIBILITY.inherit) : muted ? VISIBILITY.inherit : VISIBILITY.muted;
  await setTopicPolicy(streamId, topic, policy);
}

/** Follows a topic, or stops following it (back to the default). */
export async function toggleFollow(streamId: number, topic: string): Promise<void> {
  await setTopicPolicy(streamId, topic, isFollowed(streamId, topic) ? VISIBILITY.inherit : VISIBILITY.followed);
}

/** Mutes or unmutes a user; rejects with the server's error. */
export async function setUserMuted(userId: number, muted: boolean): Promise<void> {
  await (muted ? actionsApi.muteUser(userId) : actionsApi.unmuteUser(userId));
}
