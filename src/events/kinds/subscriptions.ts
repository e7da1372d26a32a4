/** `subscription` events: a user's own subscriptions, and other users' (peer) changes. */
import type { ApiSubscription } from "../../present/streams.ts";

/** The recipient's new subscriptions. */
type SubscriptionAddEvent = { type: "subscription"; op: "add"; subscriptions: ApiSubscription[] };
/** Channels the recipient was unsubscribed from. */
type SubscriptionRemoveEvent = { type: "subscription"; op: "remove"; subscriptions: Array<{ stream_id: number; name: string }> };
/** One of the recipient's subscription settings. */
type SubscriptionUpdateEvent = { type: "subscription"; op: "update"; stream_id: number; property: string; value: boolean | string };
/** Other users who joined or left channels. */
type SubscriptionPeerEvent = { type: "subscription"; op: "peer_add" | "peer_remove"; stream_ids: number[]; user_ids: number[] };
/** Every subscription event. */
export type SubscriptionEvent = SubscriptionAddEvent | SubscriptionRemoveEvent | SubscriptionUpdateEvent | SubscriptionPeerEvent;

/** The recipient was subscribed to these channels. */
export function subscriptionAddEvent(subscriptions: ApiSubscription[]): SubscriptionAddEvent {
  return { type: "subscription", op: "add", subscriptions };
}

/** The recipient was unsubscribed from these channels. */
export function subscriptionRemoveEvent(streams: Array<{ stream_id: number; name: string }>): SubscriptionRemoveEvent {
  return { type: "subscription", op: "remove", subscriptions: streams.map((s) => ({ stream_id: s.stream_id, name: s.name })) };
}

/** One of the recipient's personal subscription settings changed. */
export function subscriptionUpdateEvent(streamId: number, property: string, value: boolean | string): SubscriptionUpdateEvent {
  return { type: "subscription", op: "update", stream_id: streamId, property, value };
}

/** Other users joined (`peer_add`) or left (`peer_remove`) channels the recipient can see. */
export function subscriptionPeerEvent(op: "peer_add" | "peer_remove", streamIds: number[], userIds: number[]): SubscriptionPeerEvent {
  return { type: "subscription", op, stream_ids: streamIds, user_ids: [...userIds].sort((a, b) => a - b) };
}
