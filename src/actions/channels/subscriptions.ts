/**
 * Reading and changing subscriptions: unsubscribing, listing, personal settings, and the
 * helpers the subscribe action shares (principals, presented subscriptions, peer events).
 */
import { JsonableError, StreamDoesNotExistError } from "../../errors.ts";
import { isGuest, isRealmAdmin } from "../../permissions/check.ts";
import { isUserInGroup } from "../../store/groups/group-membership.ts";
import { accessStreamById, hasMetadataAccess, inAdministerGroup, metadataAccessUserIds } from "../../permissions/stream-access.ts";
import { presentStreams, presentSubscription, type ApiSubscription } from "../../present/streams.ts";
import { streamLookups } from "../../store/lookups/stream-lookups.ts";
import { streamDeleteEvent } from "../../events/kinds/streams.ts";
import { subscriptionPeerEvent, subscriptionRemoveEvent, subscriptionUpdateEvent } from "../../events/kinds/subscriptions.ts";
import type { Db } from "../../store/schema/types.ts";
import type { StreamRow, SubscriptionRow, UserRow } from "../../store/schema/database.ts";
import { getStreamByName, getStreamsByIds } from "../../store/channels/streams.ts";
import {
  activeUsersByEmails,
  activeUsersByIds,
  getSubscription,
  subscriberIds,
  subscriberIdsByStream,
  updateSubscription,
  userSubscriptionRows,
} from "../../store/channels/subscriptions.ts";
import { withTransaction, type AuthedCtx, type Emit } from "../context.ts";
import { checkStreamName } from "./settings.ts";

/** The users named by `principals` (ids or emails); "No such user" if any is unknown or inactive. */
export async function resolvePrincipals(db: Db, ctx: AuthedCtx, principals: string[] | number[]): Promise<UserRow[]> {
  const ids = principals.filter((p): p is number => typeof p === "number");
  const emails = principals.filter((p): p is string => typeof p === "string");
  const dummy = emails.map((e) => /^user(\d+)@/.exec(e)).filter((m) => m !== null).map((m) => Number(m[1]));
  const users = [...(await activeUsersByIds(db, ctx.realm.id, [...ids, ...dummy])), ...(await activeUsersByEmails(db, ctx.realm.id, emails))];
  const byId = new Map(users.map((u) => [u.id, u]));
  for (const id of ids) if (!byId.has(id)) throw new JsonableError("No such user");
  const known = new Set(users.flatMap((u) => [u.delivery_email.toLowerCase(), `user${u.id}@`]));
  for (const email of emails) {
    const dummyPrefix = /^(user\d+@)/.exec(email)?.[1];
    if (!known.has(email.toLowerCase()) && !(dummyPrefix && known.has(dummyPrefix))) throw new JsonableError("No such user");
  }
  return [...byId.values()];
}

/** Subscriptions presented for their user, with subscriber lists when asked. */
export async function presentUserSubscriptions(db: Db, ctx: AuthedCtx, rows: SubscriptionRow[], withSubscribers: boolean): Promise<ApiSubscription[]> {
  const streams = await getStreamsByIds(db, ctx.realm.id, rows.map((r) => r.stream_id));
  const presented = new Map(presentStreams(streams, await streamLookups(db, ctx.realm.id, streams)).map((s) => [s.stream_id, s]));
  const subscribers = withSubscribers ? await subscriberIdsByStream(db, ctx.realm.id, streams.map((s) => s.id)) : null;
  const out: ApiSubscription[] = [];
  for (const row of rows) {
    const stream = presented.get(row.stream_id);
    if (!stream) continue;
    const sub = presentSubscription(stream, row);
    if (subscribers) sub.subscribers = subscribers.get(row.stream_id) ?? [];
    out.push(sub);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Emits peer events for one channel's changed subscribers to everyone else who can see them. */
export async function emitPeerEvent(ctx: AuthedCtx, db: Db, emit: Emit, op: "peer_add" | "peer_remove", stream: StreamRow, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  const changed = new Set(userIds);
  const audience = [...(await metadataAccessUserIds(ctx, stream, db))].filter((id) => !changed.has(id));
  emit(subscriptionPeerEvent(op, [stream.id], userIds), audience);
}

/** GET /users/me/subscriptions: the caller's active subscriptions to active channels. */
export async function listSubscriptions(ctx: AuthedCtx, includeSubscribers: boolean): Promise<{ subscriptions: ApiSubscription[] }> {
  const rows = (await userSubscriptionRows(ctx.db, ctx.realm.id, ctx.actor.id)).filter((r) => r.active === 1);
  const active = new Set((await getStreamsByIds(ctx.db, ctx.realm.id, rows.map((r) => r.stream_id))).filter((s) => s.is_archived === 0).map((s) => s.id));
  return { subscriptions: await presentUserSubscriptions(ctx.db, ctx, rows.filter((r) => active.has(r.stream_id)), includeSubscribers) };
}

/** GET /streams/{stream_id}/members: active subscribers of a channel the caller can see. */
export async function streamMembers(ctx: AuthedCtx, streamId: number): Promise<{ subscribers: number[] }> {
  const { stream } = await accessStreamById(ctx, streamId, { metadataOnly: true });
  return { subscribers: await subscriberIds(ctx.db, ctx.realm.id, stream.id) };
}

/** GET /users/{user_id}/subscriptions/{stream_id}: whether a user is subscribed. */
export async function subscriptionStatus(ctx: AuthedCtx, userId: number, streamId: number): Promise<{ is_subscribed: boolean }> {
  const [target] = await activeUsersByIds(ctx.db, ctx.realm.id, [userId]);
  if (!target) throw new JsonableError("No such user");
  const { stream } = await accessStreamById(ctx, streamId, { metadataOnly: true });
  const row = await getSubscription(ctx.db, ctx.realm.id, target.id, stream.id);
  return { is_subscribed: row?.active === 1 };
}

/** Whether the actor may unsubscribe other users from all these channels (Zulip's rules). */
async function canRemoveSubscribers(db: Db, actor: UserRow, streams: StreamRow[], subscribed: Set<number>): Promise<boolean> {
  if (isRealmAdmin(actor)) return true;
  if (isGuest(actor)) return false;
  let administersAll = true;
  for (const stream of streams) if (!(await inAdministerGroup(db, actor, stream))) administersAll = false;
  if (administersAll) return true;
  for (const stream of streams) {
    if (!(await hasMetadataAccess(db, actor, stream, subscribed.has(stream.id)))) return false;
    if (!(await isUserInGroup(db, stream.can_remove_subscribers_group_id, actor.id))) return false;
  }
  return true;
}

/** Active channels named `names` (stripped), or STREAM_DOES_NOT_EXIST for the first missing one. */
async function existingStreamsByName(db: Db, realmId: number, names: string[]): Promise<StreamRow[]> {
  const out = new Map<number, StreamRow>();
  for (const raw of names) {
    const name = raw.trim();
    checkStreamName(name);
    const stream = await getStreamByName(db, realmId, name);
    if (!stream || stream.is_archived === 1) throw new StreamDoesNotExistError(name);
    out.set(stream.id, stream);
  }
  return [...out.values()];
}

/** DELETE /users/me/subscriptions: unsubscribes the caller or `principals` from channels. */
export async function unsubscribe(ctx: AuthedCtx, input: { subscriptions: string[]; principals?: string[] | number[] }): Promise<{ removed: string[]; not_removed: string[] }> {
  return withTransaction(ctx, async (tx, emit) => {
    const targets = input.principals && input.principals.length > 0 ? await resolvePrincipals(tx, ctx, input.principals) : [ctx.actor];
    const others = targets.some((t) => t.id !== ctx.actor.id && !(t.is_bot === 1 && t.bot_owner_id === ctx.actor.id));
    const streams = await existingStreamsByName(tx, ctx.realm.id, input.subscriptions);
    if (others) {
      const mine = new Set((await userSubscriptionRows(tx, ctx.realm.id, ctx.actor.id)).filter((r) => r.active === 1).map((r) => r.stream_id));
      if (!(await canRemoveSubscribers(tx, ctx.actor, streams, mine))) throw new JsonableError("Insufficient permission");
    }
    const result = { removed: [] as string[], not_removed: [] as string[] };
    const removedByUser = new Map<number, StreamRow[]>();
    const removedByStream = new Map<number, number[]>();
    const before = new Map<number, Set<number>>();
    for (const stream of streams) {
      before.set(stream.id, await metadataAccessUserIds(ctx, stream, tx));
      for (const target of targets) {
        const row = await getSubscription(tx, ctx.realm.id, target.id, stream.id);
        if (!row || row.active !== 1) {
          result.not_removed.push(stream.name);
          continue;
        }
        await updateSubscription(tx, ctx.realm.id, row.id, { active: 0 });
        result.removed.push(stream.name);
        removedByUser.set(target.id, [...(removedByUser.get(target.id) ?? []), stream]);
        removedByStream.set(stream.id, [...(removedByStream.get(stream.id) ?? []), target.id]);
      }
    }
    for (const [userId, gone] of removedByUser) emit(subscriptionRemoveEvent(gone.map((s) => ({ stream_id: s.id, name: s.name }))), [userId]);
    for (const stream of streams) {
      await emitPeerEvent(ctx, tx, emit, "peer_remove", stream, removedByStream.get(stream.id) ?? []);
      const after = await metadataAccessUserIds(ctx, stream, tx);
      const lost = [...(before.get(stream.id) ?? [])].filter((id) => !after.has(id));
      if (lost.length > 0) emit(streamDeleteEvent(presentStreams([stream], await streamLookups(tx, ctx.realm.id, [stream]))), lost);
    }
    return result;
  });
}

const BOOLEAN_PROPERTIES = [
  "in_home_view", "is_muted", "pin_to_top", "desktop_notifications", "audible_notifications",
  "push_notifications", "email_notifications", "wildcard_mentions_notify",
] as const;
type BooleanProperty = (typeof BOOLEAN_PROPERTIES)[number];

function isBooleanProperty(property: string): property is BooleanProperty {
  return (BOOLEAN_PROPERTIES as readonly string[]).includes(property);
}

/** Zulip's check_color: `#` and 3 to 6 hex digits. */
export function checkColor(name: string, value: unknown): string {
  if (typeof value !== "string" || !/^#[0-9a-fA-F]{3,6}$/.test(value)) throw new JsonableError(`${name} is not a valid hex color code`);
  return value;
}

/** One requested change of a personal subscription setting. */
type PropertyChange = { stream_id: number; property: string; value: boolean | string };

/** Validates one change as Zulip does before touching anything. */
function validateChange(change: PropertyChange): void {
  if (change.property === "color") checkColor("color", change.value);
  else if (!isBooleanProperty(change.property)) throw new JsonableError(`Unknown subscription property: ${change.property}`);
  else if (typeof change.value !== "boolean") throw new JsonableError(`${change.property} is not a boolean`);
}

/** Applies one validated change and emits its events (two for muting, as FL 139 has it). */
async function applyChange(ctx: AuthedCtx, tx: Db, emit: Emit, row: SubscriptionRow, change: PropertyChange): Promise<void> {
  const id = change.stream_id;
  if (change.property === "color") {
    await updateSubscription(tx, ctx.realm.id, row.id, { color: String(change.value) });
    emit(subscriptionUpdateEvent(id, "color", String(change.value)), [ctx.actor.id]);
    return;
  }
  const value = change.value === true;
  if (change.property === "in_home_view" || change.property === "is_muted") {
    const muted = change.property === "is_muted" ? value : !value;
    await updateSubscription(tx, ctx.realm.id, row.id, { is_muted: muted ? 1 : 0 });
    emit(subscriptionUpdateEvent(id, "in_home_view", !muted), [ctx.actor.id]);
    emit(subscriptionUpdateEvent(id, "is_muted", muted), [ctx.actor.id]);
    return;
  }
  const column = change.property;
  if (!isBooleanProperty(column)) return;
  await updateSubscription(tx, ctx.realm.id, row.id, { [column]: value ? 1 : 0 });
  emit(subscriptionUpdateEvent(id, column, value), [ctx.actor.id]);
}

/** POST /users/me/subscriptions/properties: changes the caller's personal channel settings. */
export async function updateSubscriptionProperties(ctx: AuthedCtx, changes: PropertyChange[]): Promise<Record<string, never>> {
  for (const change of changes) validateChange(change);
  await withTransaction(ctx, async (tx, emit) => {
    for (const change of changes) {
      const { sub } = await accessStreamById({ ...ctx, db: tx }, change.stream_id);
      if (!sub) throw new JsonableError(`Not subscribed to channel ID ${change.stream_id}`);
      const row = await getSubscription(tx, ctx.realm.id, ctx.actor.id, change.stream_id);
      if (row) await applyChange(ctx, tx, emit, row, change);
    }
  });
  return {};
}
