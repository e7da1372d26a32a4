/** POST /users/me/subscriptions: subscribing users to channels, creating missing ones. */
import { nowSeconds } from "../../clock.ts";
import { JsonableError } from "../../errors.ts";
import { hasRealmPermission, isGuest, isRealmAdmin } from "../../permissions/check.ts";
import { type GroupSettingValue } from "../../permissions/group-setting.ts";
import { isUserInGroup } from "../../store/group-membership.ts";
import { hasContentAccess, inAdministerGroup, metadataAccessUserIds } from "../../permissions/stream-access.ts";
import { presentStreams, renderStreamDescription } from "../../present/streams.ts";
import { streamLookups } from "../../store/stream-lookups.ts";
import { streamCreateEvent } from "../../events/kinds/streams.ts";
import { subscriptionAddEvent } from "../../events/kinds/subscriptions.ts";
import type { Db } from "../../store/types.ts";
import type { StreamRow, SubscriptionRow, UserRow } from "../../store/schema.ts";
import { getStreamByName, insertStream } from "../../store/streams.ts";
import { getSubscription, insertSubscription, subscribedStreamIds, updateSubscription, userSubscriptionRows } from "../../store/subscriptions.ts";
import { withTransaction, type AuthedCtx, type Emit } from "../context.ts";
import {
  checkCanCreateKind,
  checkCanSetRetention,
  checkStreamName,
  newStreamGroupSettings,
  parseRetentionDays,
  pickColor,
  type StreamGroupSetting,
} from "./settings.ts";
import { checkColor, emitPeerEvent, presentUserSubscriptions, resolvePrincipals } from "./subscriptions.ts";

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
async function canAddSubscribers(ctx: AuthedCtx, db: Db, stream: StreamRow): Promise<boolean> {
  if (isRealmAdmin(ctx.actor)) return true;
  if (await hasRealmPermission(db, ctx.realm, ctx.actor, "can_add_subscribers_group")) return true;
  if (await inAdministerGroup(db, ctx.actor, stream)) return true;
  return isUserInGroup(db, stream.can_add_subscribers_group_id, ctx.actor.id);
}

/** Creates one missing channel after the creation checks; returns it. */
async function createStream(ctx: AuthedCtx, db: Db, input: SubscribeInput, wanted: Wanted, retention: number | null): Promise<StreamRow> {
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
  const missing: Wanted[] = [];
  for (const item of wanted) {
    const stream = await getStreamByName(db, ctx.realm.id, item.name);
    if (!stream) missing.push(item);
    else if (stream.is_archived === 0 && (await hasContentAccess(db, ctx.actor, stream, mine.has(stream.id)))) authorized.push(stream);
    else unauthorized.push(stream);
  }
  if (unauthorized.length > 0 && input.authorization_errors_fatal) throw new JsonableError(`Unable to access channel (${unauthorized[0].name}).`);
  if (others) {
    for (const stream of authorized) if (!(await canAddSubscribers(ctx, db, stream))) throw new JsonableError("Insufficient permission");
  }
  const created: StreamRow[] = [];
  for (const item of missing) {
    const stream = await createStream(ctx, db, input, item, retention);
    emit(streamCreateEvent(presentStreams([stream], await streamLookups(db, ctx.realm.id, [stream]))), await metadataAccessUserIds(ctx, stream, db));
    created.push(stream);
  }
  const colors = new Map(wanted.filter((w) => w.color !== undefined).map((w) => [w.name.toLowerCase(), w.color ?? ""]));
  return { streams: [...authorized, ...created], unauthorized, colors };
}

/** Subscribes one user to one channel; returns the row if it was not already active. */
async function addOne(ctx: AuthedCtx, db: Db, user: UserRow, stream: StreamRow, color: string | undefined, used: Set<string>): Promise<SubscriptionRow | null> {
  const row = await getSubscription(db, ctx.realm.id, user.id, stream.id);
  if (row?.active === 1) return null;
  if (row) return updateSubscription(db, ctx.realm.id, row.id, color === undefined ? { active: 1 } : { active: 1, color });
  const chosen = color ?? pickColor(used);
  used.add(chosen);
  return insertSubscription(db, ctx.realm.id, user.id, stream.id, chosen);
}

/** Subscribes the caller (or `principals`) to channels, creating the missing ones; events after commit. */
export async function subscribe(ctx: AuthedCtx, input: SubscribeInput): Promise<SubscribeResult> {
  if (isGuest(ctx.actor)) throw new JsonableError("Not allowed for guest users");
  return withTransaction(ctx, async (tx, emit) => {
    const targets = input.principals && input.principals.length > 0 ? await resolvePrincipals(tx, ctx, input.principals) : [ctx.actor];
    const others = targets.some((t) => t.id !== ctx.actor.id);
    const { streams, unauthorized, colors } = await resolveStreams(ctx, tx, input, emit, others);
    const result: SubscribeResult = { subscribed: {}, already_subscribed: {} };
    const added = new Map<number, SubscriptionRow[]>();
    for (const stream of streams) {
      const before = await metadataAccessUserIds(ctx, stream, tx);
      const newcomers: number[] = [];
      for (const user of targets) {
        const used = new Set((await userSubscriptionRows(tx, ctx.realm.id, user.id)).map((r) => r.color));
        const row = await addOne(ctx, tx, user, stream, colors.get(stream.name.toLowerCase()), used);
        const bucket = row ? result.subscribed : result.already_subscribed;
        bucket[String(user.id)] = [...(bucket[String(user.id)] ?? []), stream.name];
        if (!row) continue;
        newcomers.push(user.id);
        added.set(user.id, [...(added.get(user.id) ?? []), row]);
      }
      const gained = newcomers.filter((id) => !before.has(id));
      if (gained.length > 0) emit(streamCreateEvent(presentStreams([stream], await streamLookups(tx, ctx.realm.id, [stream]))), gained);
    }
    await emitAddEvents(ctx, tx, emit, added, streams);
    if (!input.authorization_errors_fatal) result.unauthorized = unauthorized.map((s) => s.name);
    return result;
  });
}

/** Each newly subscribed user gets their subscriptions; everyone else who can see gets peer_add. */
async function emitAddEvents(ctx: AuthedCtx, db: Db, emit: Emit, added: Map<number, SubscriptionRow[]>, streams: StreamRow[]): Promise<void> {
  for (const [userId, rows] of added) emit(subscriptionAddEvent(await presentUserSubscriptions(db, ctx, rows, true)), [userId]);
  for (const stream of streams) {
    const joined = [...added].filter(([, rows]) => rows.some((r) => r.stream_id === stream.id)).map(([userId]) => userId);
    await emitPeerEvent(ctx, db, emit, "peer_add", stream, joined);
  }
}
