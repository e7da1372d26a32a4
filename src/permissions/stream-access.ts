/**
 * Who may see and change a channel, in one place (Zulip's access_stream_by_id family).
 * Missing and forbidden channels give the same error, so a refusal never reveals that a
 * private channel exists.
 */
import type { AuthedCaller, Caller } from "./caller.ts";
import { CannotAdministerChannelError, JsonableError } from "../errors.ts";
import type { Db } from "../store/schema/types.ts";
import type { StreamRow, SubscriptionRow, UserRow } from "../store/schema/database.ts";
import { getStreamById, getStreamByName } from "../store/channels/streams.ts";
import { activeRealmMembers, getSubscription, subscriberIds, type RealmMember } from "../store/channels/subscriptions.ts";
import { effectiveMemberIds, isUserInGroup } from "../store/groups/group-membership.ts";
import { isGuest, isRealmAdmin } from "./check.ts";

/** A channel the caller may use, and the caller's active subscription to it (if any). */
type StreamAccess = { stream: StreamRow; sub: SubscriptionRow | null };

type AccessOptions = {
  /** Require permission to administer the channel (admins, can_administer_channel_group). */
  forWrite?: boolean;
  /** Accept callers who only see the channel's metadata (admins and permission groups on private channels). */
  metadataOnly?: boolean;
  /** Accept archived channels (refused by default, as they are by Zulip). */
  allowArchived?: boolean;
};

const INVALID_ID = "Invalid channel ID";

/** Whether a channel is public (neither private nor web-public counts as private). */
function isPublicStream(stream: StreamRow): boolean {
  return stream.invite_only === 0;
}

/** Whether the user is in the channel's administrators group (guests never are). */
export async function inAdministerGroup(db: Db, user: UserRow, stream: StreamRow): Promise<boolean> {
  return !isGuest(user) && isUserInGroup(db, stream.can_administer_channel_group_id, user.id);
}

/** Whether the user may read the channel's messages: web-public, subscribed, or public for non-guests, or a subscribing group. */
export async function hasContentAccess(db: Db, user: UserRow, stream: StreamRow, subscribed: boolean): Promise<boolean> {
  if (stream.is_web_public === 1 || subscribed) return true;
  if (isGuest(user)) return false;
  if (isPublicStream(stream)) return true;
  return (await isUserInGroup(db, stream.can_subscribe_group_id, user.id)) || isUserInGroup(db, stream.can_add_subscribers_group_id, user.id);
}

/** Whether the user may see that the channel exists (name, settings, subscribers). */
export async function hasMetadataAccess(db: Db, user: UserRow, stream: StreamRow, subscribed: boolean): Promise<boolean> {
  if (await hasContentAccess(db, user, stream, subscribed)) return true;
  if (isGuest(user)) return false;
  if (isRealmAdmin(user)) return true;
  return inAdministerGroup(db, user, stream);
}

/** Whether the user may change the channel's settings, given that they can see it. */
async function canAdministerStream(db: Db, user: UserRow, stream: StreamRow): Promise<boolean> {
  return isRealmAdmin(user) || inAdministerGroup(db, user, stream);
}

async function check(ctx: AuthedCaller, stream: StreamRow | undefined, error: string, opts: AccessOptions): Promise<StreamAccess> {
  if (!stream || (stream.is_archived === 1 && !opts.allowArchived)) throw new JsonableError(error);
  const row = await getSubscription(ctx.db, ctx.realm.id, ctx.actor.id, stream.id);
  const sub = row && row.active === 1 ? row : null;
  const subscribed = sub !== null;
  if (opts.forWrite) {
    if (await canAdministerStream(ctx.db, ctx.actor, stream)) return { stream, sub };
    if (await hasContentAccess(ctx.db, ctx.actor, stream, subscribed)) throw new CannotAdministerChannelError();
    throw new JsonableError(error);
  }
  const allowed = opts.metadataOnly
    ? await hasMetadataAccess(ctx.db, ctx.actor, stream, subscribed)
    : await hasContentAccess(ctx.db, ctx.actor, stream, subscribed);
  if (!allowed) throw new JsonableError(error);
  return { stream, sub };
}

/** Fetches a channel by id and checks the caller may use it; one error for missing and forbidden. */
export async function accessStreamById(ctx: AuthedCaller, streamId: number, opts: AccessOptions = {}): Promise<StreamAccess> {
  return check(ctx, await getStreamById(ctx.db, ctx.realm.id, streamId), INVALID_ID, opts);
}

/** Fetches a channel by name and checks the caller may use it; one error for missing and forbidden. */
export async function accessStreamByName(ctx: AuthedCaller, name: string, opts: AccessOptions = {}): Promise<StreamAccess> {
  return check(ctx, await getStreamByName(ctx.db, ctx.realm.id, name), `Invalid channel name '${name}'`, opts);
}

/** Non-guest members of the groups that give metadata access to a private channel. */
async function groupMetadataUserIds(db: Db, stream: StreamRow, members: RealmMember[]): Promise<Set<number>> {
  const ids = new Set<number>();
  for (const groupId of [stream.can_administer_channel_group_id, stream.can_add_subscribers_group_id, stream.can_subscribe_group_id]) {
    for (const id of await effectiveMemberIds(db, groupId)) ids.add(id);
  }
  const nonGuests = new Set(members.filter((m) => !isGuest(m)).map((m) => m.id));
  return new Set([...ids].filter((id) => nonGuests.has(id)));
}

/**
 * Everyone who may see a channel's metadata, the audience of its `stream` and peer events:
 * web-public: all active users; public: non-guests and subscribed guests; private:
 * subscribers, administrators and the channel's permission groups.
 */
export async function metadataAccessUserIds(ctx: Caller, stream: StreamRow, db: Db = ctx.db): Promise<Set<number>> {
  const members = await activeRealmMembers(db, ctx.realm.id);
  if (stream.is_web_public === 1) return new Set(members.map((m) => m.id));
  const subscribers = await subscriberIds(db, ctx.realm.id, stream.id);
  if (isPublicStream(stream)) return new Set([...members.filter((m) => !isGuest(m)).map((m) => m.id), ...subscribers]);
  const admins = members.filter((m) => isRealmAdmin(m)).map((m) => m.id);
  return new Set([...subscribers, ...admins, ...(await groupMetadataUserIds(db, stream, members))]);
}
