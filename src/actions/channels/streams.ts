/** Reading channels, and archiving them. */
import { defaultStreamIds } from "../../store/channels/default-streams.ts";
import { JsonableError } from "../../errors.ts";
import { isGuest } from "../../permissions/check.ts";
import { accessStreamById, accessStreamByName, hasMetadataAccess, metadataAccessUserIds } from "../../permissions/stream-access.ts";
import { presentStream, presentStreams, type ApiStream } from "../../present/streams.ts";
import { streamLookups } from "../../store/lookups/stream-lookups.ts";
import { streamCreateEvent, streamDeleteEvent } from "../../events/kinds/streams.ts";
import type { StreamRow } from "../../store/schema/database.ts";
import { listStreams, updateStream } from "../../store/channels/streams.ts";
import { subscribedStreamIds } from "../../store/channels/subscriptions.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { doRemoveDefaultStream } from "./default-streams.ts";
import type { Db } from "../../store/schema/types.ts";
import { listStreamTopics } from "./topics.ts";

/** GET /streams's `include_*` filters. */
type StreamFilters = {
  include_public: boolean;
  include_web_public: boolean;
  include_subscribed: boolean;
  exclude_archived: boolean;
  include_all: boolean;
  include_default: boolean;
  include_owner_subscribed: boolean;
};

/** Whether a channel passes the filters of GET /streams for this caller. */
async function wanted(ctx: AuthedCtx, stream: StreamRow, f: StreamFilters, mine: Set<number>, owners: Set<number>): Promise<boolean> {
  if (f.include_all) return hasMetadataAccess(ctx.db, ctx.actor, stream, mine.has(stream.id));
  if (f.include_subscribed && mine.has(stream.id)) return true;
  // Guests cannot list public channels they are not subscribed to (can_access_public_streams).
  if (f.include_public && !isGuest(ctx.actor) && stream.invite_only === 0) return true;
  if (f.include_web_public && stream.is_web_public === 1) return true;
  return f.include_owner_subscribed && ctx.actor.is_bot === 1 && owners.has(stream.id);
}

/** GET /streams: the channels the caller asked for and may see, by name. */
export async function getStreams(ctx: AuthedCtx, filters: StreamFilters): Promise<{ streams: Array<ApiStream & { is_default?: boolean }> }> {
  const all = await listStreams(ctx.db, ctx.realm.id, { includeArchived: !filters.exclude_archived });
  const mine = await subscribedStreamIds(ctx.db, ctx.realm.id, ctx.actor.id);
  const ownerId = ctx.actor.bot_owner_id;
  const owners = ownerId !== null ? await subscribedStreamIds(ctx.db, ctx.realm.id, ownerId) : new Set<number>();
  const chosen: StreamRow[] = [];
  for (const stream of all) if (await wanted(ctx, stream, filters, mine, owners)) chosen.push(stream);
  const presented = presentStreams(chosen, await streamLookups(ctx.db, ctx.realm.id, chosen)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // No default channels exist yet, so every channel says false when asked.
  if (!filters.include_default) return { streams: presented };
  const defaults = new Set(await defaultStreamIds(ctx.db, ctx.realm.id));
  return { streams: presented.map((s) => ({ is_default: defaults.has(s.stream_id), ...s })) };
}

/** GET /streams/{stream_id}. */
export async function getStream(ctx: AuthedCtx, streamId: number): Promise<{ stream: ApiStream }> {
  const { stream } = await accessStreamById(ctx, streamId, { metadataOnly: true });
  return { stream: presentStream(stream, await streamLookups(ctx.db, ctx.realm.id, [stream])) };
}

/** GET /get_stream_id. */
export async function getStreamId(ctx: AuthedCtx, name: string): Promise<{ stream_id: number }> {
  const { stream } = await accessStreamByName(ctx, name);
  return { stream_id: stream.id };
}

/** GET /users/me/{stream_id}/topics: see topics.ts. */
export async function getStreamTopics(ctx: AuthedCtx, streamId: number, opts: { allow_empty_topic_name: boolean } = { allow_empty_topic_name: false }): Promise<{ topics: Array<{ name: string; max_id: number }> }> {
  return listStreamTopics(ctx, streamId, opts);
}

/** DELETE /streams/{stream_id}: archives a channel (and takes it out of the defaults); subscriptions are kept, as Zulip keeps them. */
export async function archiveStream(ctx: AuthedCtx, streamId: number): Promise<Record<string, never>> {
  await withTransaction(ctx, async (tx, emit) => {
    const { stream } = await accessStreamById({ ...ctx, db: tx }, streamId, { forWrite: true, allowArchived: true });
    if (stream.is_archived === 1) throw new JsonableError("Channel is already deactivated");
    const audience = await metadataAccessUserIds(ctx, stream, tx);
    const archived = await updateStream(tx, ctx.realm.id, stream.id, { is_archived: 1 });
    emit(streamDeleteEvent(presentStreams([archived], await streamLookups(tx, ctx.realm.id, [archived]))), audience);
    // An archived channel is no longer a default one (Zulip's do_deactivate_stream).
    await doRemoveDefaultStream(tx, doEnv(ctx, emit), archived);
  });
  return {};
}

/** Brings an archived channel back (PATCH is_archived=false); everyone who can see it learns of it again. */
export async function doUnarchiveStream(tx: Db, env: Pick<DoEnv, "db" | "config" | "realm" | "actor" | "emit">, stream: StreamRow): Promise<StreamRow> {
  if (stream.is_archived === 0) throw new JsonableError("Channel is not currently deactivated");
  const active = await updateStream(tx, env.realm.id, stream.id, { is_archived: 0 });
  env.emit(streamCreateEvent(presentStreams([active], await streamLookups(tx, env.realm.id, [active]))), await metadataAccessUserIds(env, active, tx));
  return active;
}
