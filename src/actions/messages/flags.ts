/**
 * Personal message flags (POST /messages/flags and the legacy mark-as-read calls), with the bulk
 * form of the message access check (Zulip's bulk_access_messages).
 */
import { InvalidMessageError, JsonableError } from "../../errors.ts";
import { hasContentAccess } from "../../permissions/stream-access.ts";
import { updateMessageFlagsEvent, unreadMessageDetails } from "../../events/kinds/message-flags.ts";
import type { Db } from "../../store/schema/types.ts";
import { flagStates, HISTORICAL_DEFAULT, writeFlagBits } from "../../store/messages/flag-writes.ts";
import { receivedIds, storedFlags } from "../../store/messages/message-flags.ts";
import { getMessages } from "../../store/messages/messages.ts";
import { MESSAGE_FLAG, type MessageRow, type UserRow } from "../../store/schema/database.ts";
import { getStreamsByIds } from "../../store/channels/streams.ts";
import { subscribedStreamIds } from "../../store/channels/subscriptions.ts";
import { classifyUnreads, unreadRows, userHasTopicMessage, type UnreadRow } from "../../store/lookups/unreads.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import { doRemoveReadNotifications } from "../push/removals.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";

/** Zulip's flags that exist but no user may change (bookkeeping, or unused legacy flags). */
const NON_EDITABLE_FLAGS: ReadonlySet<string> = new Set([
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "has_alert_word",
  "historical",
  "force_expand",
  "force_collapse",
  "summarize_in_home",
  "summarize_in_stream",
]);

/** Rows marked read per statement batch by the legacy mark-as-read calls. */
const MARK_READ_BATCH = 5000;

/**
 * Ids of the given messages the user may see: those they hold (received, or with a flag row),
 * and channel messages with history public to subscribers in channels whose content they may read.
 */
async function accessibleMessageIds(db: Db, user: UserRow, messages: MessageRow[]): Promise<Set<number>> {
  const [received, stored] = await Promise.all([receivedIds(db, user.id, messages), storedFlags(db, user.id, messages.map((m) => m.id))]);
  const out = new Set(messages.filter((m) => received.has(m.id) || stored.has(m.id)).map((m) => m.id));
  const others = messages.filter((m) => !out.has(m.id) && m.stream_id !== null);
  if (others.length === 0) return out;
  const streams = await getStreamsByIds(db, user.realm_id, [...new Set(others.map((m) => m.stream_id ?? 0))]);
  const subscribed = await subscribedStreamIds(db, user.realm_id, user.id);
  const readable = new Set<number>();
  for (const stream of streams) {
    if (stream.history_public_to_subscribers === 1 && (await hasContentAccess(db, user, stream, subscribed.has(stream.id)))) readable.add(stream.id);
  }
  for (const m of others) if (readable.has(m.stream_id ?? 0)) out.add(m.id);
  return out;
}

/** The bit of an editable flag; Zulip's errors for unknown and read-only flags. */
function editableFlagBit(flag: string): number {
  if (!Object.hasOwn(MESSAGE_FLAG, flag) && !NON_EDITABLE_FLAGS.has(flag)) throw new JsonableError(`Invalid flag: '${flag}'`);
  if (NON_EDITABLE_FLAGS.has(flag)) throw new JsonableError(`Flag not editable: '${flag}'`);
  return flag === "read" ? MESSAGE_FLAG.read : flag === "starred" ? MESSAGE_FLAG.starred : MESSAGE_FLAG.collapsed;
}

/** Checks a flag change request before anything is read: flag first, then the operation, as Zulip does. */
export function checkFlagChange(flag: string, op: string): { bit: number; op: "add" | "remove" } {
  const bit = editableFlagBit(flag);
  if (op !== "add" && op !== "remove") throw new JsonableError(`Invalid message flag operation: '${op}'`);
  return { bit, op };
}

/**
 * Adds or removes one flag on messages for the actor (Zulip's do_update_message_flags): messages
 * already in the wanted state are skipped; messages the actor does not hold are checked for access
 * when the change would give them a flag row ("Invalid message(s)"). Emits the event; returns the changed ids.
 */
export async function doUpdateFlags(
  tx: Db,
  env: Pick<DoEnv, "emit" | "realm" | "config">,
  actor: UserRow,
  change: { op: "add" | "remove"; flag: string; bit: number },
  messageIds: number[],
): Promise<number[]> {
  let ids = [...new Set(messageIds)];
  const rows = new Map((await getMessages(tx, actor.realm_id, ids)).map((m) => [m.id, m]));
  if (change.flag === "read" && change.op === "remove") {
    // Stream messages marked unread must be in subscribed streams (Zulip's invariant).
    const subscribed = await subscribedStreamIds(tx, actor.realm_id, actor.id);
    ids = ids.filter((id) => {
      const streamId = rows.get(id)?.stream_id ?? null;
      return streamId === null || subscribed.has(streamId);
    });
  }
  const states = await flagStates(tx, actor.id, [...rows.values()]);
  const target = change.op === "add" ? change.bit : 0;
  const changed = ids.filter((id) => ((states.get(id)?.bits ?? HISTORICAL_DEFAULT) & change.bit) !== target);
  if ((HISTORICAL_DEFAULT & change.bit) !== target) {
    const unheld = changed.filter((id) => !states.get(id)?.hasRow);
    const known = unheld.flatMap((id) => rows.get(id) ?? []);
    const accessible = await accessibleMessageIds(tx, actor, known);
    if (unheld.some((id) => !accessible.has(id))) throw new InvalidMessageError();
  }
  await writeFlagBits(
    tx,
    actor.id,
    changed.flatMap((id) => {
      const state = states.get(id);
      if (!state) return [];
      return [{ messageId: id, bits: change.op === "add" ? state.bits | change.bit : state.bits & ~change.bit, defaultBits: state.defaultBits }];
    }),
  );
  const event = updateMessageFlagsEvent(change.op, change.flag, changed);
  if (change.flag === "read" && change.op === "remove") {
    const unread: UnreadRow[] = changed.flatMap((id) => {
      const m = rows.get(id);
      const state = states.get(id);
      if (!m || !state) return [];
      const derived = m.stream_wildcard_mention === 1 && (state.bits & MESSAGE_FLAG.historical) === 0 ? MESSAGE_FLAG.stream_wildcard_mentioned : 0;
      return [{ id: m.id, stream_id: m.stream_id, topic: m.topic, recipient_id: m.recipient_id, sender_id: m.sender_id, bits: state.bits | derived }];
    });
    event.message_details = unreadMessageDetails(actor.id, await classifyUnreads(tx, actor.realm_id, actor.id, unread));
  }
  if (change.flag === "read" && change.op === "add") await doRemoveReadNotifications(tx, env, actor, changed);
  env.emit(event, [actor.id]);
  return changed;
}

/** POST /messages/flags: echoes the requested ids, as Zulip does. */
export async function updateMessageFlags(ctx: AuthedCtx, input: { messages: number[]; op: string; flag: string }): Promise<{ messages: number[] }> {
  const { bit, op } = checkFlagChange(input.flag, input.op);
  await withTransaction(ctx, (tx, emit) => doUpdateFlags(tx, doEnv(ctx, emit), ctx.actor, { op, flag: input.flag, bit }, input.messages));
  return { messages: input.messages };
}

/** Marks the actor's unread messages (optionally of one channel or topic) read, in batches; returns their ids. */
async function markUnreadAsRead(db: Db, actor: UserRow, filter: { streamId?: number; topic?: string }): Promise<number[]> {
  const done: number[] = [];
  for (;;) {
    const { rows } = await unreadRows(db, actor.realm_id, actor.id, { ...filter, includeUnsubscribed: true, limit: MARK_READ_BATCH });
    if (rows.length === 0) return done.sort((a, b) => a - b);
    const states = await flagStates(db, actor.id, await getMessages(db, actor.realm_id, rows.map((r) => r.id)));
    await writeFlagBits(db, actor.id, [...states].map(([messageId, s]) => ({ messageId, bits: s.bits | MESSAGE_FLAG.read, defaultBits: s.defaultBits })));
    done.push(...rows.map((r) => r.id));
    if (rows.length < MARK_READ_BATCH) return done.sort((a, b) => a - b);
  }
}

/** POST /mark_all_as_read (deprecated): one event with `all` and no ids, as Zulip sends. */
export async function markAllAsRead(ctx: AuthedCtx): Promise<{ complete: boolean }> {
  await withTransaction(ctx, async (tx, emit) => {
    const ids = await markUnreadAsRead(tx, ctx.actor, {});
    await doRemoveReadNotifications(tx, doEnv(ctx, emit), ctx.actor, ids);
    emit(updateMessageFlagsEvent("add", "read", [], true), [ctx.actor.id]);
  });
  return { complete: true };
}

/** POST /mark_stream_as_read and /mark_topic_as_read (deprecated): an event only when something changed. */
export async function markStreamAsRead(ctx: AuthedCtx, streamId: number, topicName?: string): Promise<Record<string, never>> {
  const { stream } = await accessStreamById(ctx, streamId);
  if (topicName && !(await userHasTopicMessage(ctx.db, ctx.realm.id, ctx.actor.id, stream.id, topicName))) {
    throw new JsonableError(`No such topic '${topicName}'`);
  }
  await withTransaction(ctx, async (tx, emit) => {
    const ids = await markUnreadAsRead(tx, ctx.actor, { streamId: stream.id, topic: topicName || undefined });
    await doRemoveReadNotifications(tx, doEnv(ctx, emit), ctx.actor, ids);
    if (ids.length > 0) emit(updateMessageFlagsEvent("add", "read", ids), [ctx.actor.id]);
  });
  return {};
}
