/**
 * The rules of PATCH /messages/{id} that decide whether an edit may happen (Zulip's
 * validate_message_edit_payload, validate_user_can_edit_message, can_edit_topic,
 * can_resolve_topics, can_move_messages_out_of_channel and the move time limits).
 */
import { JsonableError, MoveMessagesTimeLimitError } from "../../errors.ts";
import { hasRealmPermission, isModeratorOrAbove, isRealmAdmin } from "../../permissions/check.ts";
import { isUserInGroup } from "../../store/groups/group-membership.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { inAdministerGroup } from "../../permissions/stream-access.ts";
import type { Db } from "../../store/schema/types.ts";
import type { MessageRow, RealmRow, StreamRow, UserRow } from "../../store/schema/database.ts";

/** Grace added to every edit and move time limit (upstream's edit_limit_buffer, seconds). */
const EDIT_LIMIT_BUFFER_SECONDS = 20;

/** The prefix of a resolved topic. */
const RESOLVED_TOPIC_PREFIX = "✔ ";

/** The legacy spelling of the empty topic (before FL 334). */
const LEGACY_NO_TOPIC = "(no topic)";
/** Control, surrogate and unassigned characters are refused in topics. */
const BAD_TOPIC_CHAR = /[\p{Cc}\p{Cs}\p{Cn}]/u;
/** What a topic longer than max_topic_length ends with after truncation. */
const TOPIC_TRUNCATION = "...";

/** Which messages of the topic a topic or channel move covers. */
export type PropagateMode = "change_one" | "change_later" | "change_all";

/** Content edits: the realm allows editing, only the sender edits content, within the time limit. */
export function checkCanEditContent(realm: RealmRow, actor: UserRow, message: MessageRow, now: number): void {
  const settings = realmSettings(realm);
  if (!settings.allow_message_editing) throw new JsonableError("Your organization has turned off message editing");
  if (message.sender_id !== actor.id) throw new JsonableError("You don't have permission to edit this message");
  const limit = settings.message_content_edit_limit_seconds;
  if (limit !== null && now - message.date_sent > limit + EDIT_LIMIT_BUFFER_SECONDS) {
    throw new JsonableError("The time limit for editing this message has passed");
  }
}

/**
 * A requested topic as edits compare it: trimmed, `(no topic)` and the realm's empty-topic
 * display name read as "" (FL 334/370); undefined when absent or equal to the current topic.
 */
export function requestedTopic(raw: string | undefined, realm: RealmRow, current: string): string | undefined {
  if (raw === undefined) return undefined;
  const topic = raw.trim();
  const named = topic === LEGACY_NO_TOPIC || topic === realmSettings(realm).realm_empty_topic_display_name ? "" : topic;
  return named === current ? undefined : named;
}

/** Refuses topics with unprintable characters and the resolved forms of the empty topic. */
export function checkTopicText(topic: string, realm: RealmRow): void {
  const display = realmSettings(realm).realm_empty_topic_display_name;
  if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === `${RESOLVED_TOPIC_PREFIX}${display}`) {
    throw new JsonableError("General chat cannot be marked as resolved");
  }
  const bad = BAD_TOPIC_CHAR.exec(topic);
  if (bad) throw new JsonableError(`Invalid character in topic, at position ${[...topic.slice(0, bad.index)].length + 1}!`);
}

/** A topic cut to the realm's max_topic_length (in characters), ending in "..." when cut. */
export function truncateTopic(topic: string, realm: RealmRow): string {
  const max = realmSettings(realm).max_topic_length;
  const chars = [...topic];
  return chars.length > max ? chars.slice(0, max - TOPIC_TRUNCATION.length).join("") + TOPIC_TRUNCATION : topic;
}

/** Whether a topic change only adds or removes the resolved prefix (upstream's topic_resolved / topic_unresolved). */
export function resolveToggle(oldTopic: string, requested: string, stored: string): { resolved: boolean; unresolved: boolean } {
  const resolved = stored.startsWith(RESOLVED_TOPIC_PREFIX) && !oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) && requested.slice(RESOLVED_TOPIC_PREFIX.length) === oldTopic;
  // Upstream strips every leading "✔" and space of the old topic (Python's lstrip).
  const unresolved = oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) && !stored.startsWith(RESOLVED_TOPIC_PREFIX) && oldTopic.replace(/^[✔ ]+/u, "") === stored;
  return { resolved, unresolved };
}

/** A moved-to empty topic where the realm requires topics. */
export function checkEmptyTopicAllowed(realm: RealmRow, topic: string): void {
  const settings = realmSettings(realm);
  if (topic === "" && (settings.mandatory_topics || settings.topics_policy === "disable_empty_topic")) {
    throw new JsonableError("Sending messages to the general chat is not allowed in this channel.");
  }
}

async function canAdministerAccessible(db: Db, user: UserRow, stream: StreamRow): Promise<boolean> {
  return isRealmAdmin(user) || inAdministerGroup(db, user, stream);
}

async function canMoveWithinChannel(db: Db, user: UserRow, stream: StreamRow): Promise<boolean> {
  if (await canAdministerAccessible(db, user, stream)) return true;
  return isUserInGroup(db, stream.can_move_messages_within_channel_group_id, user.id);
}

/** Topic edits: the realm's between-topics group, or the channel-level group of either channel. */
export async function canEditTopic(db: Db, realm: RealmRow, user: UserRow, from: StreamRow, to: StreamRow): Promise<boolean> {
  if (await hasRealmPermission(db, realm, user, "can_move_messages_between_topics_group")) return true;
  if (await canMoveWithinChannel(db, user, from)) return true;
  return from.id !== to.id && canMoveWithinChannel(db, user, to);
}

/** Resolving: the realm's can_resolve_topics_group, or the channel-level group of either channel. */
export async function canResolveTopics(db: Db, realm: RealmRow, user: UserRow, from: StreamRow, to: StreamRow): Promise<boolean> {
  if (await hasRealmPermission(db, realm, user, "can_resolve_topics_group")) return true;
  if (await isUserInGroup(db, from.can_resolve_topics_group_id, user.id)) return true;
  return from.id !== to.id && isUserInGroup(db, to.can_resolve_topics_group_id, user.id);
}

/** Channel moves: admins, the realm's between-channels group, channel administrators, or the channel's out-of-channel group. */
export async function canMoveOutOfChannel(db: Db, realm: RealmRow, user: UserRow, stream: StreamRow): Promise<boolean> {
  if (isRealmAdmin(user)) return true;
  if (await hasRealmPermission(db, realm, user, "can_move_messages_between_channels_group")) return true;
  if (await inAdministerGroup(db, user, stream)) return true;
  return isUserInGroup(db, stream.can_move_messages_out_of_channel_group_id, user.id);
}

/** The topic time limit for non-moderators (move_messages_within_stream_limit_seconds). */
export function checkTopicMoveTime(realm: RealmRow, user: UserRow, message: MessageRow, now: number): void {
  const limit = realmSettings(realm).move_messages_within_stream_limit_seconds;
  if (limit === null || isModeratorOrAbove(user)) return;
  if (now - message.date_sent > limit + EDIT_LIMIT_BUFFER_SECONDS) throw new JsonableError("The time limit for editing this message's topic has passed.");
}

/** The channel time limit for non-moderators (move_messages_between_streams_limit_seconds). */
export function checkChannelMoveTime(realm: RealmRow, user: UserRow, message: MessageRow, now: number): void {
  const limit = realmSettings(realm).move_messages_between_streams_limit_seconds;
  if (limit === null || isModeratorOrAbove(user)) return;
  if (now - message.date_sent > limit + EDIT_LIMIT_BUFFER_SECONDS) throw new JsonableError("The time limit for editing this message's channel has passed");
}

/**
 * change_all by a non-moderator: every message of the topic (that the user can see) must be
 * within the stricter applicable move limit (plus buffer), else MOVE_MESSAGES_TIME_LIMIT_EXCEEDED
 * says which recent part they may move.
 */
export function checkChangeAllTime(realm: RealmRow, topicMessages: ReadonlyArray<Pick<MessageRow, "id" | "date_sent">>, moves: { topic: boolean; stream: boolean }, now: number): void {
  const settings = realmSettings(realm);
  const limits: number[] = [];
  if (moves.topic && settings.move_messages_within_stream_limit_seconds !== null) limits.push(settings.move_messages_within_stream_limit_seconds);
  if (moves.stream && settings.move_messages_between_streams_limit_seconds !== null) limits.push(settings.move_messages_between_streams_limit_seconds);
  if (limits.length === 0) return;
  const deadline = Math.min(...limits) + EDIT_LIMIT_BUFFER_SECONDS;
  const allowed = topicMessages.filter((m) => now - m.date_sent < deadline).sort((a, b) => a.id - b.id);
  if (allowed.length === topicMessages.length) return;
  throw new MoveMessagesTimeLimitError(allowed[0]?.id ?? null, topicMessages.length, allowed.length);
}
