/**
 * Content edits (Zulip's update_message_content): re-render as the sender, refuse mentions the
 * sender may not use, rewrite the row and its search entry, and keep the mention flags of the
 * message's recipients equal to what the new content says.
 */
import { JsonableError } from "../../errors.ts";
import type { RenderResult } from "../../markdown/render.ts";
import { effectiveMemberIds, isUserInGroup } from "../../store/groups/group-membership.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { receiverIds } from "../../permissions/message-access.ts";
import type { Db } from "../../store/schema/types.ts";
import { indexMessage } from "../../store/messages/search-index.ts";
import { deleteFlagRow, updateFlagRow } from "../../store/messages/flag-writes.ts";
import { defaultFlagBits, messageFlagRows } from "../../store/messages/message-flags.ts";
import { insertFlagRows, topicParticipantIds, updateMessage } from "../../store/messages/messages.ts";
import { MESSAGE_FLAG, type MessageRow, type StreamRow, type UserRow } from "../../store/schema/database.ts";
import { subscriberIds } from "../../store/channels/subscriptions.ts";
import { syncAttachmentLinks } from "../attachments/claim.ts";
import { alertedReceiverIds } from "../users/alert-words.ts";
import type { AuthedCtx, Emit } from "../context.ts";
import { normalizeContent } from "./send-content.ts";
import { renderForSender } from "./render-context.ts";

/** A new content, rendered, with who it mentions (group members expanded). */
export type RenderedEdit = { content: string; render: RenderResult; mentionedUserIds: Set<number>; topicParticipants: Set<number> };

/** Upstream replaces content that is only whitespace by this text rather than refusing it. */
const DELETED_CONTENT = "(deleted)";

/** Bits that content decides (mentions, alert words); the channel wildcard bit is derived from the message row instead. */
const CONTENT_BITS = MESSAGE_FLAG.mentioned | MESSAGE_FLAG.topic_wildcard_mentioned | MESSAGE_FLAG.stream_wildcard_mentioned | MESSAGE_FLAG.has_alert_word;

/** The stored content for an edit: blank becomes "(deleted)", then the send rules apply. */
export function editedContent(raw: string, ctx: AuthedCtx): string {
  return normalizeContent(raw.trim() === "" ? DELETED_CONTENT : raw, ctx.realm);
}

/** Refuses group and wildcard mentions the sender may not use (as sending would). */
async function checkMentions(ctx: AuthedCtx, db: Db, sender: UserRow, render: RenderResult, stream: StreamRow | null, participants: number): Promise<void> {
  const forbidden = render.forbiddenGroupMentions[0];
  if (forbidden) throw new JsonableError(`You are not allowed to mention user group '${forbidden.name}'.`);
  if (stream === null) return;
  const settings = realmSettings(ctx.realm);
  const many = () => isUserInGroup(db, settings.can_mention_many_users_group, sender.id);
  if (render.wildcard.channel && (await subscriberIds(db, ctx.realm.id, stream.id)).length > settings.wildcard_mention_threshold && !(await many())) {
    throw new JsonableError("You do not have permission to use channel wildcard mentions in this channel.", { code: "STREAM_WILDCARD_MENTION_NOT_ALLOWED" });
  }
  if (render.wildcard.topic && participants > settings.wildcard_mention_threshold && !(await many())) {
    throw new JsonableError("You do not have permission to use topic wildcard mentions in this topic.", { code: "TOPIC_WILDCARD_MENTION_NOT_ALLOWED" });
  }
}

/** Renders new content for a message as its sender, after the mention checks. */
export async function renderEdit(ctx: AuthedCtx, db: Db, message: MessageRow, sender: UserRow, stream: StreamRow | null, content: string): Promise<RenderedEdit> {
  const render = await renderForSender(ctx, db, sender, content);
  const participants = stream === null ? [] : await topicParticipantIds(db, ctx.realm.id, stream.id, message.topic);
  await checkMentions(ctx, db, sender, render, stream, participants.length);
  const mentioned = new Set(render.mentionedUserIds);
  for (const groupId of render.mentionedGroupIds) for (const id of await effectiveMemberIds(db, groupId)) mentioned.add(id);
  return { content, render, mentionedUserIds: mentioned, topicParticipants: new Set(render.wildcard.topic ? participants : []) };
}

/**
 * Writes the new content, rendering and derived columns of the message, and follows the uploads it
 * now links; returns the updated row.
 */
export async function writeContent(ctx: AuthedCtx, db: Db, emit: Emit, message: MessageRow, edit: RenderedEdit, now: number): Promise<MessageRow> {
  const row = await updateMessage(db, ctx.realm.id, message.id, {
    content: edit.content,
    rendered_content: edit.render.html,
    is_me_message: edit.render.isMeMessage ? 1 : 0,
    has_link: edit.render.hasLink ? 1 : 0,
    has_image: edit.render.hasImage ? 1 : 0,
    has_attachment: edit.render.hasAttachment ? 1 : 0,
    stream_wildcard_mention: edit.render.wildcard.channel && message.stream_id !== null ? 1 : 0,
    last_edit_time: now,
  });
  await indexMessage(db, ctx.engine, { id: row.id, topic: row.topic, renderedContent: row.rendered_content });
  await syncAttachmentLinks(db, ctx.realm.id, ctx.actor.id, row.id, edit.render.linkedUploadPaths, emit);
  return row;
}

/**
 * Sets or clears `mentioned` and `topic_wildcard_mentioned` for every recipient the new content
 * concerns; rows equal to the default are removed, so the table stays sparse. Returns the
 * recipients who were mentioned and are no longer, and those mentioned now who were not.
 */
export async function updateMentionFlags(db: Db, message: MessageRow, edit: RenderedEdit): Promise<{ unmentioned: number[]; newlyMentioned: number[] }> {
  const receivers = await receiverIds(db, [message]);
  const rows = await messageFlagRows(db, message.id);
  const stored = new Map(rows.map((r) => [r.user_id, r.flags]));
  // Upstream recomputes alert words on edit too (the sender never gets the flag).
  const alerted = await alertedReceiverIds(db, message.realm_id, edit.content, receivers, message.sender_id);
  const concerned = new Set([...edit.mentionedUserIds, ...edit.topicParticipants, ...alerted, ...stored.keys()]);
  const unmentioned: number[] = [];
  const newlyMentioned: number[] = [];
  const MENTION_BITS = MESSAGE_FLAG.mentioned | MESSAGE_FLAG.topic_wildcard_mentioned;
  for (const userId of concerned) {
    if (!receivers.has(userId)) continue;
    const base = (stored.get(userId) ?? defaultFlagBits(userId, message)) & ~CONTENT_BITS;
    let bits = base;
    if (edit.mentionedUserIds.has(userId)) bits |= MESSAGE_FLAG.mentioned;
    if (edit.topicParticipants.has(userId)) bits |= MESSAGE_FLAG.topic_wildcard_mentioned;
    if (alerted.has(userId)) bits |= MESSAGE_FLAG.has_alert_word;
    await setFlagRow(db, userId, message, bits, stored.get(userId));
    const before = stored.get(userId) ?? 0;
    if ((before & MESSAGE_FLAG.mentioned) !== 0 && (bits & MESSAGE_FLAG.mentioned) === 0) unmentioned.push(userId);
    if ((before & MENTION_BITS) === 0 && (bits & MENTION_BITS) !== 0) newlyMentioned.push(userId);
  }
  return { unmentioned, newlyMentioned };
}

/** Stores `bits` for a recipient: no row when they equal the default. */
async function setFlagRow(db: Db, userId: number, message: MessageRow, bits: number, previous: number | undefined): Promise<void> {
  if (bits === previous) return;
  const isDefault = bits === defaultFlagBits(userId, message);
  if (previous !== undefined && isDefault) {
    await deleteFlagRow(db, userId, message.id);
    return;
  }
  if (previous !== undefined) {
    await updateFlagRow(db, userId, message.id, bits);
    return;
  }
  if (!isDefault) await insertFlagRows(db, message.id, new Map([[userId, bits]]));
}
