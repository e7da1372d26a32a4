/** Emoji reactions: POST and DELETE /messages/{message_id}/reactions, with `reaction` events. */
import { JsonableError, ReactionDoesNotExistError, ReactionExistsError } from "../../errors.ts";
import { reactionEvent } from "../../events/kinds/reactions.ts";
import type { Db } from "../../store/schema/types.ts";
import { ensureHistoricalRow, messageHolderIds } from "../../store/messages/flag-writes.ts";
import { deleteReaction, firstReactionWithEmoji, getReaction, insertReaction, type Emoji } from "../../store/messages/reactions.ts";
import type { MessageRow } from "../../store/schema/database.ts";
import { getStreamById } from "../../store/channels/streams.ts";
import { subscriberIds } from "../../store/channels/subscriptions.ts";
import { accessMessage } from "../../permissions/message-access.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { checkEmoji, EMOJI_TYPE, emojiByName } from "../emoji/check.ts";

/**
 * Who hears about changes to a message's reactions: everyone holding the message, plus the
 * subscribers of a channel whose history is public to them (Zulip's notify_reaction_update).
 */
async function messageAudienceIds(db: Db, realmId: number, message: MessageRow): Promise<Set<number>> {
  const ids = await messageHolderIds(db, message);
  if (message.stream_id === null) return ids;
  const stream = await getStreamById(db, realmId, message.stream_id);
  if (stream?.history_public_to_subscribers === 1) for (const id of await subscriberIds(db, realmId, stream.id)) ids.add(id);
  return ids;
}

/** POST /messages/{id}/reactions: a vote on an existing reaction takes that reaction's emoji name. */
export async function addReaction(ctx: AuthedCtx, messageId: number, input: { emoji_name: string; emoji_code?: string; reaction_type?: string }): Promise<Record<string, never>> {
  await withTransaction(ctx, async (tx, emit) => {
    const { message } = await accessMessage(ctx, tx, messageId, { forModify: true });
    const byName = input.emoji_code === undefined || input.reaction_type === undefined ? await emojiByName(tx, ctx.realm.id, input.emoji_name) : undefined;
    const emojiCode = input.emoji_code ?? byName?.code ?? "";
    const reactionType = input.reaction_type ?? byName?.type ?? EMOJI_TYPE.unicode;
    const key = { messageId: message.id, userId: ctx.actor.id, reactionType, emojiCode };
    if (await getReaction(tx, ctx.realm.id, key)) throw new ReactionExistsError();
    const existing = await firstReactionWithEmoji(tx, ctx.realm.id, message.id, reactionType, emojiCode);
    const emoji: Emoji = { emoji_name: existing?.emoji_name ?? input.emoji_name, emoji_code: emojiCode, reaction_type: reactionType };
    if (!existing) await checkEmoji(tx, ctx.realm.id, { name: emoji.emoji_name, code: emoji.emoji_code, type: emoji.reaction_type });
    if (!(await messageHolderIds(tx, message)).has(ctx.actor.id)) await ensureHistoricalRow(tx, ctx.actor.id, message.id);
    const row = await insertReaction(tx, ctx.realm.id, { ...emoji, message_id: message.id, user_id: ctx.actor.id });
    // A concurrent request added the same reaction between the check above and the insert.
    if (!row) throw new ReactionExistsError();
    emit(reactionEvent("add", row), await messageAudienceIds(tx, ctx.realm.id, message));
  });
  return {};
}

/** DELETE /messages/{id}/reactions: by code, or by name looked up in the current emoji data. */
export async function removeReaction(ctx: AuthedCtx, messageId: number, input: { emoji_name?: string; emoji_code?: string; reaction_type: string }): Promise<Record<string, never>> {
  await withTransaction(ctx, async (tx, emit) => {
    const { message } = await accessMessage(ctx, tx, messageId, { forModify: true });
    let emojiCode = input.emoji_code;
    if (emojiCode === undefined) {
      if (input.emoji_name === undefined) throw new JsonableError("At least one of the following arguments must be present: emoji_name, emoji_code");
      emojiCode = (await emojiByName(tx, ctx.realm.id, input.emoji_name)).code;
    }
    const row = await getReaction(tx, ctx.realm.id, { messageId: message.id, userId: ctx.actor.id, reactionType: input.reaction_type, emojiCode });
    if (!row) throw new ReactionDoesNotExistError();
    if (!(await deleteReaction(tx, ctx.realm.id, row.id))) throw new ReactionDoesNotExistError();
    emit(reactionEvent("remove", row), await messageAudienceIds(tx, ctx.realm.id, message));
  });
  return {};
}
