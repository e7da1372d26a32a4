/**
 * Scheduled messages (Zulip's zerver/actions/scheduled_messages.py and views): a message is
 * checked as a send would be (checkMessage) when it is scheduled and again when it is sent (see
 * scheduled-worker.ts); the sender lists, edits and deletes their own, each change an event to
 * their queues.
 */
import type { Updateable } from "kysely";
import { scheduledMessageRemoveEvent, scheduledMessagesAddEvent, scheduledMessageUpdateEvent } from "../../events/kinds/drafts.ts";
import { JsonableError, ScheduledMessageDoesNotExistError } from "../../errors.ts";
import { directAudience, presentScheduledMessage, type ApiScheduledMessage } from "../../present/drafts.ts";
import { directRecipientMembers } from "../../store/messages/messages.ts";
import { DELIVERY_TYPE, type ScheduledMessageRow, type ScheduledMessageTable } from "../../store/schema/drafts.ts";
import {
  deleteScheduledMessage,
  getOwnScheduledMessage,
  insertScheduledMessage,
  updateUndeliveredScheduledMessage,
} from "../../store/messages/scheduled-messages.ts";
import type { Db } from "../../store/schema/types.ts";
import { scheduledMessagesOf } from "../../register/drafts.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { defaultReadBySender, normalizeTopic } from "./send-content.ts";
import { checkMessage, type Addressee, type SendRequest } from "./send.ts";

/** The message types a request names; `direct` and `channel` are the modern spellings. */
export type ScheduledMessageType = "private" | "stream";

/** POST /scheduled_messages, with `type` already made canonical. */
type ScheduleInput = {
  type: ScheduledMessageType;
  to: number | number[];
  topic?: string;
  content: string;
  scheduled_delivery_timestamp: number;
  read_by_sender?: boolean;
};

/** PATCH /scheduled_messages/{id}: only what changes. */
type ScheduleEditInput = Partial<Omit<ScheduleInput, "read_by_sender">>;

/**
 * Who a scheduled message goes to, as the send path's raw `to` (so it resolves and checks a
 * channel id or user ids exactly as POST /messages does), from Zulip's extract_stream_id and
 * extract_direct_message_recipient_ids.
 */
function scheduledAddressee(type: ScheduledMessageType, to: number | number[], topic: string | undefined): Addressee {
  if (type === "stream") {
    if (typeof to !== "number") throw new JsonableError("Invalid data type for channel ID");
    return { type, to: String(to), topic };
  }
  if (typeof to === "number") throw new JsonableError("Invalid data type for recipients");
  return { type, to: JSON.stringify([...new Set(to)]) };
}

/** The stored addressee of a scheduled message, to check it again at edit or delivery time. */
export async function storedAddressee(db: Db, row: ScheduledMessageRow): Promise<Addressee> {
  if (row.stream_id !== null) return scheduledAddressee("stream", row.stream_id, row.topic);
  const members = (await directRecipientMembers(db, [row.recipient_id])).get(row.recipient_id) ?? [];
  return scheduledAddressee("private", directAudience(members, row.sender_id), undefined);
}

/** A scheduled message as its sender sees it (direct conversations' members read from `db`). */
export async function presentScheduled(db: Db, row: ScheduledMessageRow): Promise<ApiScheduledMessage> {
  const members = row.stream_id === null ? await directRecipientMembers(db, [row.recipient_id]) : new Map<number, number[]>();
  return presentScheduledMessage(row, members);
}

/** Zulip refuses a delivery time that is not after now (whole seconds against the exact clock). */
export function checkInFuture(ctx: AuthedCtx, timestamp: number): void {
  if (timestamp * 1000 <= ctx.clock.nowMs()) throw new JsonableError("Scheduled delivery time must be in the future.");
}

/** The columns a checked send request fills. */
function requestColumns(request: SendRequest): Pick<ScheduledMessageRow, "recipient_id" | "stream_id" | "topic"> {
  return { recipient_id: request.recipientId, stream_id: request.stream?.id ?? null, topic: request.topic };
}

function contentColumns(request: SendRequest): Pick<ScheduledMessageRow, "content" | "rendered_content" | "has_attachment"> {
  return { content: request.content, rendered_content: request.rendered.html, has_attachment: request.rendered.hasAttachment ? 1 : 0 };
}

async function ownScheduled(ctx: AuthedCtx, db: Db, id: number): Promise<ScheduledMessageRow> {
  const row = await getOwnScheduledMessage(db, ctx.realm.id, ctx.actor.id, id, DELIVERY_TYPE.sendLater);
  if (!row) throw new ScheduledMessageDoesNotExistError();
  return row;
}

/** GET /scheduled_messages: the caller's undelivered messages, failed ones included, by delivery time. */
export function listOwnScheduledMessages(ctx: AuthedCtx): Promise<ApiScheduledMessage[]> {
  return scheduledMessagesOf(ctx.db, ctx.realm.id, ctx.actor.id);
}

/** POST /scheduled_messages: checks the message as a send, stores it and returns its id. */
export async function createScheduledMessage(ctx: AuthedCtx, input: ScheduleInput): Promise<number> {
  checkInFuture(ctx, input.scheduled_delivery_timestamp);
  const addressee = scheduledAddressee(input.type, input.to, input.topic);
  return withTransaction(ctx, async (tx, emit) => {
    const request = await checkMessage(ctx, tx, { addressee, content: input.content });
    // Zulip's legacy default: read by the sender when sent from a full UI, unless sent to oneself only.
    const toSelfOnly = request.stream === null && request.receiverIds.every((id) => id === ctx.actor.id);
    const readBySender = input.read_by_sender ?? (defaultReadBySender(ctx.client) && !toSelfOnly);
    const row = await insertScheduledMessage(tx, {
      realm_id: ctx.realm.id,
      sender_id: ctx.actor.id,
      ...requestColumns(request),
      ...contentColumns(request),
      sending_client: ctx.client,
      scheduled_timestamp: input.scheduled_delivery_timestamp,
      read_by_sender: readBySender ? 1 : 0,
    });
    emit(scheduledMessagesAddEvent([await presentScheduled(tx, row)]), [ctx.actor.id]);
    return row.id;
  });
}

/** Zulip's update_scheduled_message_backend checks, made before the message is looked up. */
function checkEditInput(ctx: AuthedCtx, input: ScheduleEditInput): void {
  if (Object.values(input).every((v) => v === undefined)) throw new JsonableError("Nothing to change");
  if (input.type !== undefined && input.to === undefined) throw new JsonableError("Recipient required when updating type of scheduled message.");
  if (input.type === "stream" && input.topic === undefined) throw new JsonableError("Topic required when updating scheduled message type to channel.");
  if (input.scheduled_delivery_timestamp !== undefined) checkInFuture(ctx, input.scheduled_delivery_timestamp);
}

/** The columns an edit changes, the changed message checked again as a send (Zulip's edit_scheduled_message). */
async function editedColumns(ctx: AuthedCtx, tx: Db, row: ScheduledMessageRow, input: ScheduleEditInput): Promise<Updateable<ScheduledMessageTable>> {
  const patch: Updateable<ScheduledMessageTable> = {};
  const existingType: ScheduledMessageType = row.stream_id === null ? "private" : "stream";
  const readdressed = input.type !== undefined || input.to !== undefined;
  if (readdressed || input.content !== undefined) {
    const type = input.type ?? existingType;
    const addressee = input.to === undefined ? await storedAddressee(tx, row) : scheduledAddressee(type, input.to, input.topic ?? row.topic);
    const request = await checkMessage(ctx, tx, { addressee, content: input.content ?? row.content });
    if (readdressed) Object.assign(patch, requestColumns(request));
    if (input.content !== undefined) Object.assign(patch, contentColumns(request));
  }
  // A new topic alone applies to channel messages; direct messages have none.
  if (!readdressed && input.topic !== undefined && existingType === "stream") patch.topic = normalizeTopic(input.topic, ctx.realm);
  if (input.scheduled_delivery_timestamp !== undefined) patch.scheduled_timestamp = input.scheduled_delivery_timestamp;
  return patch;
}

/** PATCH /scheduled_messages/{id}: changes one of the caller's messages not sent yet; a failed one needs a new time. */
export async function editScheduledMessage(ctx: AuthedCtx, id: number, input: ScheduleEditInput): Promise<void> {
  checkEditInput(ctx, input);
  await withTransaction(ctx, async (tx, emit) => {
    const row = await ownScheduled(ctx, tx, id);
    if (row.delivered === 1) throw new JsonableError("Scheduled message was already sent");
    if (row.failed === 1 && input.scheduled_delivery_timestamp === undefined) throw new JsonableError("Scheduled delivery time must be in the future.");
    const patch = await editedColumns(ctx, tx, row, input);
    // The delivery guard: a worker that sent it meanwhile set `delivered` first.
    const updated = await updateUndeliveredScheduledMessage(tx, ctx.realm.id, id, { ...patch, sending_client: ctx.client, failed: 0, failure_message: null });
    if (!updated) throw new JsonableError("Scheduled message was already sent");
    emit(scheduledMessageUpdateEvent(await presentScheduled(tx, updated)), [ctx.actor.id]);
  });
}

/** DELETE /scheduled_messages/{id}: cancels one of the caller's messages. */
export async function removeScheduledMessage(ctx: AuthedCtx, id: number): Promise<void> {
  await withTransaction(ctx, async (tx, emit) => {
    await ownScheduled(ctx, tx, id);
    await deleteScheduledMessage(tx, ctx.realm.id, id);
    emit(scheduledMessageRemoveEvent(id), [ctx.actor.id]);
  });
}
