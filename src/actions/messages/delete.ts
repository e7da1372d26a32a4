/**
 * DELETE /messages/{id} (Zulip's validate_can_delete_message and do_delete_messages): permission
 * by realm and channel groups and the time limit, then the message and everything hanging off it
 * (flag rows, reactions, submessages, search entry) removed in one transaction, and a
 * `delete_message` event to everyone who could see it.
 */
import { nowSeconds } from "../../clock.ts";
import { deleteMessageEvent } from "../../events/kinds/message-updates.ts";
import { streamUpdateEvent } from "../../events/kinds/streams.ts";
import { JsonableError } from "../../errors.ts";
import { hasRealmPermission } from "../../permissions/check.ts";
import { isUserInGroup } from "../../store/groups/group-membership.ts";
import { accessMessage, messageEventUserIds } from "../../permissions/message-access.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import type { Db } from "../../store/schema/types.ts";
import { unindexMessages } from "../../store/messages/search-index.ts";
import { deleteFlagRowsOfMessages } from "../../store/messages/flag-writes.ts";
import { deleteMessageRows, firstStreamMessageId } from "../../store/messages/messages.ts";
import { deleteReactionsOfMessages } from "../../store/messages/reactions.ts";
import type { MessageRow, StreamRow } from "../../store/schema/database.ts";
import { updateStream } from "../../store/channels/streams.ts";
import { deleteSubmessagesOfMessages } from "../../store/messages/submessages.ts";
import { getUser } from "../../store/users/users.ts";
import { releaseAttachmentsForDeletedMessages, removeAttachmentFiles } from "../attachments/claim.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { doRemoveMessageNotifications } from "../push/removals.ts";

const NO_PERMISSION = "You don't have permission to delete this message";

/** Upstream's order: anyone may delete with can_delete_any; otherwise only own (or own bots') messages, by group and time limit. */
async function checkCanDelete(ctx: AuthedCtx, tx: Db, message: MessageRow, stream: StreamRow | null, now: number): Promise<void> {
  const actor = ctx.actor;
  if (await hasRealmPermission(tx, ctx.realm, actor, "can_delete_any_message_group")) return;
  if (stream !== null && (await isUserInGroup(tx, stream.can_delete_any_message_group_id, actor.id))) return;
  if (message.sender_id !== actor.id) {
    const sender = await getUser(tx, ctx.realm.id, message.sender_id);
    if (sender?.bot_owner_id !== actor.id) throw new JsonableError(NO_PERMISSION);
  }
  if (!(await hasRealmPermission(tx, ctx.realm, actor, "can_delete_own_message_group"))) {
    // Channel messages: the channel-level group can grant it instead (FL 291+).
    if (stream === null || !(await isUserInGroup(tx, stream.can_delete_own_message_group_id, actor.id))) throw new JsonableError(NO_PERMISSION);
  }
  const limit = realmSettings(ctx.realm).message_content_delete_limit_seconds;
  if (limit !== null && now - message.date_sent > limit) throw new JsonableError("The time limit for deleting this message has passed");
}

/**
 * Removes messages of one conversation with their flag rows, reactions, submessages, search
 * entries and the uploads only they linked; keeps a channel's first_message_id right. A trusted
 * primitive: checks nothing. Returns the released uploads' path ids, whose files the caller
 * removes after commit.
 */
export async function doDeleteMessages(tx: Db, env: Pick<DoEnv, "realm" | "engine" | "emit" | "config">, messages: MessageRow[], stream: StreamRow | null): Promise<string[]> {
  const { realm, engine, emit } = env;
  const ids = messages.map((m) => m.id);
  const audience = await messageEventUserIds(tx, realm.id, messages, stream);
  const released = await releaseAttachmentsForDeletedMessages(tx, realm.id, ids, emit);
  await deleteFlagRowsOfMessages(tx, ids);
  await doRemoveMessageNotifications(tx, env, ids);
  await deleteReactionsOfMessages(tx, ids);
  await deleteSubmessagesOfMessages(tx, ids);
  await unindexMessages(tx, engine, ids);
  await deleteMessageRows(tx, realm.id, ids);
  const sample = messages[0];
  emit(deleteMessageEvent(ids, stream === null ? null : { streamId: stream.id, topic: sample.topic }), audience);
  if (stream !== null && stream.first_message_id !== null && ids.includes(stream.first_message_id)) {
    const next = await firstStreamMessageId(tx, realm.id, stream.id);
    const updated = await updateStream(tx, realm.id, stream.id, { first_message_id: next ?? null });
    emit(streamUpdateEvent({ stream_id: stream.id, name: stream.name }, "first_message_id", updated.first_message_id), audience);
  }
  return released;
}

/** Deletes one message the caller may see and may delete. */
export async function deleteMessage(ctx: AuthedCtx, messageId: number): Promise<void> {
  const released = await withTransaction(ctx, async (tx, emit) => {
    const { message, stream } = await accessMessage(ctx, tx, messageId, { forModify: true });
    await checkCanDelete(ctx, tx, message, stream, nowSeconds(ctx.clock));
    return doDeleteMessages(tx, doEnv(ctx, emit), [message], stream);
  });
  await removeAttachmentFiles(ctx.config.uploadsDir, released);
}
