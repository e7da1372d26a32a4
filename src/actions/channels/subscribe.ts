/** POST /users/me/subscriptions: subscribing users to channels, creating missing ones. */
import { nowSeconds } from "../../clock.ts";
import { pushTo } from "../../collections.ts";
import { JsonableError } from "../../errors.ts";
import { hasRealmPermission, isGuest, isRealmAdmin } from "../../permissions/check.ts";
import { type GroupSettingValue } from "../../permissions/group-setting.ts";
import { isUserInGroup } from "../../store/groups/group-membership.ts";
import { hasContentAccess, inAdministerGroup, metadataAccessUserIds } from "../../permissions/stream-access.ts";
import { presentStreams, presentSubscription, renderStreamDescription } from "../../present/streams.ts";
import { streamLookups } from "../../store/lookups/stream-lookups.ts";
import { streamCreateEvent } from "../../events/kinds/streams.ts";
import { subscriptionAddEvent } from "../../events/kinds/subscriptions.ts";
import type { Db } from "../../store/schema/types.ts";
import type { StreamRow, SubscriptionRow, UserRow } from "../../store/schema/database.ts";
import { getStreamByName, insertStream } from "../../store/channels/streams.ts";
import {
  insertSubscriptions,
  setSubscriptionsActive,
  subscribedStreamIds,
  subscriberIdsByStream,
  subscriptionColorsByUser,
  subscriptionsOfUsers,
} from "../../store/channels/subscriptions.ts";
import { withTransaction, type AuthedCtx, type Emit } from "../context.ts";
import {
  checkCanCreateKind,
  checkCanSetRetention,
  checkStreamName,
  newStreamGroupSettings,
  parseRetentionDays,
  pickColor,
} from "./settings.ts";
import type { StreamGroupSetting } from "../../permissions/stream-settings.ts";
import { checkColor, emitPeerEvent, resolvePrincipals } from "./subscriptions.ts";

/** POST /users/me/subscriptions's parameters, decoded. */
type SubscribeInput = {
  subscriptions: Array<{ name: string; description?: string; color?: string }>;
  principals?: string[] | number[];
  authorization_errors_fatal: boolean;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: string | number;
  groupSettings: Partial<Record<StreamGroupSetting, GroupSettingValue>>;
};

/** The response: channel names by user id, newly or already subscribed, and the refused channels. */
type SubscribeResult = {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
};

type Wanted = { name: string; description: string; color?: string };

/** Stripped, validated, de-duplicated (by lower-case name) channel requests. */
function wantedStreams(input: SubscribeInput): Wanted[] {
  const seen = new Map<string, Wanted>();
  for (const item of input.subscriptions) {
    const name = item.name.trim();
    checkStreamName(name);
    if (item.color !== undefined) checkColor("add.color", item.color);
    // Zulip keeps descriptions on one line.
    const description = (item.description ?? "").replaceAll("\n", " ");
    if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), { name, description, color: item.color });
  }
  return [...seen.values()];
}

/** Whether the actor may add other users to an existing channel they can access. */
export async function canAddSubscribers(ctx: AuthedCtx, db: Db, stream: StreamRow): Promise<boolean> {
  if (isRealmAdmin(ctx.actor)) return true;
  if (await hasRealmPermission(db, ctx.realm, ctx.actor, "can_add_subscribers_group")) return true;
  if (await inAdministerGroup(db, ctx.actor, stream)) return true;
  return isUserInGroup(db, stream.can_add_subscribers_group_id, ctx.actor.id);
}

/** Creates one missing channel after the creation checks; returns it, or undefined when a concurrent request created it first. */
export async function createStream(ctx: AuthedCtx, db: Db, input: SubscribeInput, wanted: Wanted, retention: number | null): Promise<StreamRow | undefined> {
  await checkCanCreateKind(db, ctx.realm, ctx.actor, { inviteOnly: input.invite_only, webPublic: input.is_web_public });
  if (retention !== null) checkCanSetRetention(ctx.actor);
  const groups = await newStreamGroupSettings(db, ctx.realm, ctx.actor, input.groupSettings);
  // Public channels always share history; private ones protect it unless asked (Zulip's rule).
  const history = input.invite_only ? (input.history_public_to_subscribers ?? false) : true;
  return insertStream(db, {
    realm_id: ctx.realm.id,
    name: wanted.name,
    description: wanted.description,
    rendered_description: renderStreamDescription(wanted.description, ctx.config.externalUrl),
    invite_only: input.invite_only ? 1 : 0,
    is_web_public: input.is_web_public ? 1 : 0,
    history_public_to_subscribers: history ? 1 : 0,
    message_retention_days: retention,
    date_created: nowSeconds(ctx.clock),
    creator_id: ctx.actor.id,
    is_archived: 0,
    first_message_id: null,
    ...groups,
  });
}

/** Sorts requested channels into existing (authorized or not) and created ones. */
async function resolveStreams(ctx: AuthedCtx, db: Db, input: SubscribeInput, emit: Emit, others: boolean) {
  const wanted = wantedStreams(input);
  const retention = input.message_retention_days === undefined ? null : parseRetentionDays(input.message_retention_days);
  const mine = await subscribedStreamIds(db, ctx.realm.id, ctx.actor.id);
  const authorized: StreamRow[] = [];
  const unauthorized: StreamRow[] = [];
  const classify = async (stream: StreamRow) => {
    if (stream.is_archived === 0 && (await hasContentAccess(db, ctx.actor, stream, mine.has(stream.id)))) authorized.push(stream);
    else unauthorized.push(stream);
  };
  const missing: Wanted[] = [];
  for (const item of wanted) {
    const stream = await getStreamByName(db, ctx.realm.id, item.name);
    if (!stream) missing.push(item);
    else await classify(stream);
  }
  const checkExisting = async (streams: StreamRow[]) => {
    if (unauthorized.length > 0 && input.authorization_errors_fatal) throw new JsonableError(`Unable to access channel (${unauthorized[0].name}).`);
    if (!others) return;
    for (const stream of streams) if (!(await canAddSubscribers(ctx, db, stream))) throw new JsonableError("Insufficient permission");
  };
  await checkExisting(authorized);
  const created: StreamRow[] = [];
  const raced: StreamRow[] = [];
  for (const item of missing) {
    const stream = await createStream(ctx, db, input, item, retention);
    if (!stream) {
      // Created by a concurrent request since the lookup above: an existing channel after all.
      const existing = await getStreamByName(db, ctx.realm.id, item.name);
      if (existing) raced.push(existing);
      continue;
    }
    emit(streamCreateEvent(presentStreams([stream], await streamLookups(db, ctx.realm.id, [stream]))), await metadataAccessUserIds(ctx, stream, db));
    created.push(stream);
  }
  const before = authorized.length;
  for (const stream of raced) await classify(stream);
  await checkExisting(authorized.slice(before));
  const colors = new Map(wanted.filter((w) => w.color !== undefined).map((w) => [w.name.toLowerCase(), w.color ?? ""]));
  return { streams: [...authorized, ...created], unauthorized, colors };
}

/**
 * Subscribes the targets to one channel, in a few statements whatever their number; returns the
 * rows of those not already active. A concurrent request that subscribes the same user first
 * makes this one find them already subscribed. `used` holds each target's colors, kept current.
 */
async function addToStream(ctx: AuthedCtx, db: Db, targets: UserRow[], stream: StreamRow, color: string | undefined, used: Map<number, Set<string>>): Promise<Map<number, SubscriptionRow>> {
  const realmId = ctx.realm.id;
  const existing = await subscriptionsOfUsers(db, realmId, stream.id, targets.map((t) => t.id));
  const colors = new Map<number, string>();
  for (const user of targets) {
    if (existing.has(user.id)) continue;
    const mine = used.get(user.id) ?? new Set<string>();
    const chosen = color ?? pickColor(mine);
    mine.add(chosen);
    used.set(user.id, mine);
    colors.set(user.id, chosen);
  }
  const out = new Map((await insertSubscriptions(db, realmId, stream.id, colors)).map((row) => [row.user_id, row]));
  const raced = [...colors.keys()].filter((id) => !out.has(id));
  const rows = [...existing.values(), ...(raced.length > 0 ? (await subscriptionsOfUsers(db, realmId, stream.id, raced)).values() : [])];
  const inactive = rows.filter((r) => r.active !== 1).map((r) => r.id);
  for (const row of await setSubscriptionsActive(db, realmId, inactive, 1, color === undefined ? {} : { color })) out.set(row.user_id, row);
  return out;
}

/** Subscribes the caller (or `principals`) to channels, creating the missing ones; events after commit. */
export async function subscribe(ctx: AuthedCtx, input: SubscribeInput): Promise<SubscribeResult> {
  if (isGuest(ctx.actor)) throw new JsonableError("Not allowed for guest users");
  return withTransaction(ctx, async (tx, emit) => {
    const targets = input.principals && input.principals.length > 0 ? await resolvePrincipals(tx, ctx, input.principals) : [ctx.actor];
    const others = targets.some((t) => t.id !== ctx.actor.id);
    const { streams, unauthorized, colors } = await resolveStreams(ctx, tx, input, emit, others);
    const subscribed = new Map<string, string[]>();
    const already = new Map<string, string[]>();
    const added: Added = { byUser: new Map(), byStream: new Map() };
    const used = await subscriptionColorsByUser(tx, ctx.realm.id, targets.map((t) => t.id));
    for (const stream of streams) {
      const before = await metadataAccessUserIds(ctx, stream, tx);
      const rows = await addToStream(ctx, tx, targets, stream, colors.get(stream.name.toLowerCase()), used);
      for (const user of targets) {
        const row = rows.get(user.id);
        pushTo(row ? subscribed : already, String(user.id), stream.name);
        if (!row) continue;
        pushTo(added.byUser, user.id, row);
        pushTo(added.byStream, stream.id, user.id);
      }
      const gained = (added.byStream.get(stream.id) ?? []).filter((id) => !before.has(id));
      if (gained.length > 0) emit(streamCreateEvent(presentStreams([stream], await streamLookups(tx, ctx.realm.id, [stream]))), gained);
    }
    await emitAddEvents(ctx, tx, emit, added, streams);
    const result: SubscribeResult = { subscribed: Object.fromEntries(subscribed), already_subscribed: Object.fromEntries(already) };
    if (!input.authorization_errors_fatal) result.unauthorized = unauthorized.map((s) => s.name);
    return result;
  });
}

/** The subscriptions a request added: rows by user, user ids by channel. */
type Added = { byUser: Map<number, SubscriptionRow[]>; byStream: Map<number, number[]> };

/**
 * Each newly subscribed user gets their subscriptions; everyone else who can see gets peer_add.
 * The channels are presented once for all users (as presentUserSubscriptions does for one).
 */
async function emitAddEvents(ctx: AuthedCtx, db: Db, emit: Emit, added: Added, streams: StreamRow[]): Promise<void> {
  if (added.byUser.size === 0) return;
  const presented = new Map(presentStreams(streams, await streamLookups(db, ctx.realm.id, streams)).map((s) => [s.stream_id, s]));
  const subscribers = await subscriberIdsByStream(db, ctx.realm.id, streams.map((s) => s.id));
  for (const [userId, rows] of added.byUser) {
    const subscriptions = rows.flatMap((row) => {
      const stream = presented.get(row.stream_id);
      return stream ? [{ subscribers: subscribers.get(row.stream_id) ?? [], ...presentSubscription(stream, row) }] : [];
    });
    emit(subscriptionAddEvent(subscriptions.sort((a, b) => a.name.localeCompare(b.name))), [userId]);
  }
  for (const stream of streams) await emitPeerEvent(ctx, db, emit, "peer_add", stream, added.byStream.get(stream.id) ?? []);
}
