/**
 * The register snapshot's channel part: `subscription` (subscriptions, unsubscribed,
 * never_subscribed), `stream` (streams).
 */
import type { SnapshotCtx } from "./provider.ts";
import { hasMetadataAccess } from "../permissions/stream-access.ts";
import { realmSettings } from "../permissions/realm-settings.ts";
import { presentStreams, presentSubscription, withInheritedNotificationSettings, type ApiStream, type ApiSubscription } from "../present/streams.ts";
import { streamLookups } from "../store/lookups/stream-lookups.ts";
import type { StreamRow, UserRow } from "../store/schema/database.ts";
import { listStreams } from "../store/channels/streams.ts";
import { activeRealmMembers, subscriberIdsByStream, userSubscriptionRows } from "../store/channels/subscriptions.ts";
import type { QueueOptions } from "../events/queue-options.ts";
import type { StateProvider } from "./provider.ts";

/** Channels with at least this many subscribers may get partial_subscribers (SPEC.md: fewer than 250 always full). */
const PARTIAL_SUBSCRIBERS_THRESHOLD = 250;

type SubscriberLists = (streamId: number, visible: boolean) => Pick<ApiSubscription, "subscribers" | "partial_subscribers">;

/** How subscriber lists are attached under the queue's include_subscribers mode. */
async function subscriberLists(ctx: SnapshotCtx, opts: QueueOptions, streams: StreamRow[]): Promise<SubscriberLists> {
  if (opts.include_subscribers === "false") return () => ({});
  const lists = await subscriberIdsByStream(ctx.db, ctx.realm.id, streams.map((s) => s.id));
  // Activity is not tracked yet, so partial lists hold every bot (the guaranteed part).
  const bots = new Set((await activeRealmMembers(ctx.db, ctx.realm.id)).filter((m) => m.is_bot === 1).map((m) => m.id));
  return (streamId, visible) => {
    const ids = visible ? (lists.get(streamId) ?? []) : [];
    if (opts.include_subscribers === "partial" && ids.length >= PARTIAL_SUBSCRIBERS_THRESHOLD) {
      return { partial_subscribers: ids.filter((id) => bots.has(id)) };
    }
    return { subscribers: ids };
  };
}

/** The three subscription lists for an authenticated user. */
async function subscriptionState(ctx: SnapshotCtx, actor: UserRow, opts: QueueOptions, streams: StreamRow[], presented: Map<number, ApiStream>) {
  const rows = new Map((await userSubscriptionRows(ctx.db, ctx.realm.id, actor.id)).map((r) => [r.stream_id, r]));
  const lists = await subscriberLists(ctx, opts, streams);
  const subscriptions: ApiSubscription[] = [];
  const unsubscribed: ApiSubscription[] = [];
  const neverSubscribed: Array<ApiStream & Pick<ApiSubscription, "subscribers" | "partial_subscribers">> = [];
  for (const stream of streams) {
    const api = presented.get(stream.id);
    const row = rows.get(stream.id);
    if (!api) continue;
    const visible = await hasMetadataAccess(ctx.db, actor, stream, row?.active === 1);
    // A channel left is listed only while its metadata stays visible (Zulip's
    // has_metadata_access_to_previously_subscribed_stream): not to a guest for a public channel,
    // nor to a member for a private one.
    if (row?.active === 1) subscriptions.push({ ...presentSubscription(api, row), ...lists(stream.id, visible) });
    else if (row && visible) unsubscribed.push({ ...presentSubscription(api, row), ...lists(stream.id, visible) });
    else if (!row && visible) neverSubscribed.push({ ...api, ...lists(stream.id, true) });
  }
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  const forClient = opts.capabilities.notification_settings_null ? (sub: ApiSubscription) => sub : (sub: ApiSubscription) => withInheritedNotificationSettings(sub, actor);
  return {
    subscriptions: subscriptions.map(forClient).sort(byName),
    unsubscribed: unsubscribed.map(forClient).sort(byName),
    never_subscribed: neverSubscribed.sort(byName),
  };
}

/** Channels visible to the viewer: metadata access, or web-public ones for spectators when enabled. */
async function visibleStreams(ctx: SnapshotCtx, streams: StreamRow[]): Promise<StreamRow[]> {
  const actor = ctx.actor;
  if (!actor) return realmSettings(ctx.realm).enable_spectator_access ? streams.filter((s) => s.is_web_public === 1) : [];
  const subscribed = new Set((await userSubscriptionRows(ctx.db, ctx.realm.id, actor.id)).filter((r) => r.active === 1).map((r) => r.stream_id));
  const out: StreamRow[] = [];
  for (const stream of streams) if (await hasMetadataAccess(ctx.db, actor, stream, subscribed.has(stream.id))) out.push(stream);
  return out;
}

/** The channel part of POST /register; archived channels only for clients declaring `archived_channels`. */
export const streamsState: StateProvider = {
  async fetch(ctx, opts, want) {
    const out: Record<string, unknown> = {};
    if (!want("subscription") && !want("stream") && !want("default_streams")) return out;
    const streams = await listStreams(ctx.db, ctx.realm.id, { includeArchived: opts.capabilities.archived_channels });
    const presented = new Map(presentStreams(streams, await streamLookups(ctx.db, ctx.realm.id, streams)).map((s) => [s.stream_id, s]));
    if (want("subscription")) {
      const empty = { subscriptions: [], unsubscribed: [], never_subscribed: [] };
      Object.assign(out, ctx.actor ? await subscriptionState(ctx, ctx.actor, opts, streams, presented) : empty);
    }
    if (want("stream")) {
      const visible = await visibleStreams(ctx, streams);
      out.streams = visible.map((s) => presented.get(s.id)).filter((s) => s !== undefined);
    }
    // No default channels exist yet.
    return out;
  },
};
