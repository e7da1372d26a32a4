/**
 * Default channels (Zulip's zerver/actions/default_streams.py): the public channels new users
 * join. Administrators add and remove them; every non-guest hears of the full new list.
 */
import { AdministratorRequiredError, JsonableError } from "../../errors.ts";
import { defaultStreamsEvent } from "../../events/kinds/streams.ts";
import { isGuest, isRealmAdmin } from "../../permissions/check.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import { defaultStreamIds, deleteDefaultStream, insertDefaultStream } from "../../store/channels/default-streams.ts";
import type { StreamRow, UserRow } from "../../store/schema/database.ts";
import { getStreamsByIds } from "../../store/channels/streams.ts";
import { activeRealmMembers, insertSubscriptions, subscriptionColorsByUser } from "../../store/channels/subscriptions.ts";
import type { Db } from "../../store/schema/types.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv, type Emit } from "../context.ts";
import { pickColor } from "./settings.ts";
import { emitPeerEvent } from "./subscriptions.ts";

/** Sends the realm's current default channel ids to its active non-guests (Zulip's notify_default_streams). */
async function notifyDefaultStreams(tx: Db, env: Pick<DoEnv, "realm" | "emit">): Promise<void> {
  const recipients = (await activeRealmMembers(tx, env.realm.id)).filter((m) => !isGuest(m)).map((m) => m.id);
  env.emit(defaultStreamsEvent(await defaultStreamIds(tx, env.realm.id)), recipients);
}

/** Makes a channel default and tells the realm when it was not already (Zulip's do_add_default_stream). */
export async function doAddDefaultStream(tx: Db, env: Pick<DoEnv, "realm" | "emit">, stream: StreamRow): Promise<void> {
  if (await insertDefaultStream(tx, env.realm.id, stream.id)) await notifyDefaultStreams(tx, env);
}

/** Takes a channel out of the defaults and tells the realm when it was one (Zulip's do_remove_default_stream). */
export async function doRemoveDefaultStream(tx: Db, env: Pick<DoEnv, "realm" | "emit">, stream: StreamRow): Promise<void> {
  if (await deleteDefaultStream(tx, env.realm.id, stream.id)) await notifyDefaultStreams(tx, env);
}

/** Whether a channel is one of the realm's defaults. */
export async function isDefaultStream(db: Db, realmId: number, streamId: number): Promise<boolean> {
  return (await defaultStreamIds(db, realmId)).includes(streamId);
}

/** POST /default_streams: administrators only; private channels cannot be default. */
export async function addDefaultStream(ctx: AuthedCtx, streamId: number): Promise<Record<string, never>> {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
  const { stream } = await accessStreamById(ctx, streamId);
  if (stream.invite_only === 1) throw new JsonableError("Private channels cannot be made default.");
  await withTransaction(ctx, (tx, emit) => doAddDefaultStream(tx, doEnv(ctx, emit), stream));
  return {};
}

/** DELETE /default_streams: administrators only; the list is sent again even if unchanged, as Zulip does. */
export async function removeDefaultStream(ctx: AuthedCtx, streamId: number): Promise<Record<string, never>> {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
  const { stream } = await accessStreamById(ctx, streamId, { metadataOnly: true });
  await withTransaction(ctx, async (tx, emit) => {
    await deleteDefaultStream(tx, ctx.realm.id, stream.id);
    await notifyDefaultStreams(tx, doEnv(ctx, emit));
  });
  return {};
}

/** The realm's default channels that are not archived. */
export async function activeDefaultStreams(tx: Db, realmId: number): Promise<StreamRow[]> {
  return (await getStreamsByIds(tx, realmId, await defaultStreamIds(tx, realmId))).filter((s) => s.is_archived === 0);
}

/**
 * Subscribes a new user to the realm's active default channels, each with a fresh color; no
 * events (the user's own queues do not exist yet; see emitJoinedDefaultStreams for the others').
 * Checks nothing.
 */
export async function doJoinDefaultStreams(tx: Db, env: Pick<DoEnv, "realm">, user: UserRow): Promise<void> {
  await doJoinStreams(tx, env, user, await activeDefaultStreams(tx, env.realm.id));
}

/** Subscribes a new user to channels, each with a fresh color; no events (as doJoinDefaultStreams). Checks nothing. */
export async function doJoinStreams(tx: Db, env: Pick<DoEnv, "realm">, user: UserRow, streams: readonly StreamRow[]): Promise<void> {
  const used = (await subscriptionColorsByUser(tx, env.realm.id, [user.id])).get(user.id) ?? new Set<string>();
  for (const stream of streams) {
    const color = pickColor(used);
    used.add(color);
    await insertSubscriptions(tx, env.realm.id, stream.id, new Map([[user.id, color]]));
  }
}

/**
 * Tells everyone who can see the default channels' subscribers that a new user joined them
 * (`peer_add`, as Zulip's bulk_add_subscriptions in process_new_human_user), so their clients'
 * subscriber lists stay right. Call in the transaction that created the user.
 */
export async function emitJoinedDefaultStreams(ctx: AuthedCtx, tx: Db, emit: Emit, user: UserRow): Promise<void> {
  for (const stream of await activeDefaultStreams(tx, ctx.realm.id)) await emitPeerEvent(ctx, tx, emit, "peer_add", stream, [user.id]);
}
