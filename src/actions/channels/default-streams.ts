/**
 * Default channels (Zulip's zerver/actions/default_streams.py): the public channels new users
 * join. Administrators add and remove them; every non-guest hears of the full new list.
 */
import { AdministratorRequiredError, JsonableError } from "../../errors.ts";
import { defaultStreamsEvent } from "../../events/kinds/streams.ts";
import { isGuest, isRealmAdmin } from "../../permissions/check.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import { defaultStreamIds, deleteDefaultStream, insertDefaultStream } from "../../store/default-streams.ts";
import type { StreamRow, UserRow } from "../../store/schema.ts";
import { getStreamsByIds } from "../../store/streams.ts";
import { activeRealmMembers, insertSubscriptions, subscriptionColorsByUser } from "../../store/subscriptions.ts";
import type { Db } from "../../store/types.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { pickColor } from "./settings.ts";

/** Sends the realm's current default channel ids to its active non-guests (Zulip's notify_default_streams). */
async function notifyDefaultStreams(tx: Db, env: Pick<DoEnv, "realm" | "emit">): Promise<void> {
  const recipients = (await activeRealmMembers(tx, env.realm.id)).filter((m) => !isGuest(m)).map((m) => m.id);
  env.emit(defaultStreamsEvent(await defaultStreamIds(tx, env.realm.id)), recipients);
}

/** Makes a channel default and tells the realm when it was not already (Zulip's do_add_default_stream). */
export async function doAddDefaultStream(tx: Db, env: Pick<DoEnv, "realm" | "emit">, stream: StreamRow): Promise<void> {
  if (await insertDefaultStream(tx, env.realm.id, stream.id)) await notifyDefaultStreams(tx, env);
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

/**
 * Subscribes a new user to the realm's active default channels, each with a fresh color; no
 * events: the user is new, and callers announce the account itself. Checks nothing.
 */
export async function doJoinDefaultStreams(tx: Db, env: Pick<DoEnv, "realm">, user: UserRow): Promise<void> {
  const streams = (await getStreamsByIds(tx, env.realm.id, await defaultStreamIds(tx, env.realm.id))).filter((s) => s.is_archived === 0);
  const used = (await subscriptionColorsByUser(tx, env.realm.id, [user.id])).get(user.id) ?? new Set<string>();
  for (const stream of streams) {
    const color = pickColor(used);
    used.add(color);
    await insertSubscriptions(tx, env.realm.id, stream.id, new Map([[user.id, color]]));
  }
}
