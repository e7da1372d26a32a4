/**
 * What the signed-in user may do to a message, from the organization's settings in the register
 * snapshot (Zulip web's message_edit.is_content_editable and message_delete checks): edit the
 * content of their own messages within the edit limit, edit topics when the realm's
 * can_move_messages_between_topics_group allows (within the move limit for non-moderators), delete their own within the delete limit or
 * any message with can_delete_any_message_group. The server enforces every rule again; this only
 * decides which actions are offered.
 */
import type { GroupSettingValue, Message } from "../api/types.ts";
import { inGroupSetting } from "./groups.ts";
import { realmSettings, users } from "./store.ts";

function setting(key: string): unknown {
  return realmSettings.value[key];
}

function groupSetting(key: string): GroupSettingValue | undefined {
  const value = setting(key);
  if (typeof value === "number") return value;
  if (value !== null && typeof value === "object" && "direct_members" in value && "direct_subgroups" in value && Array.isArray(value.direct_members) && Array.isArray(value.direct_subgroups)) {
    return { direct_members: value.direct_members.filter((v): v is number => typeof v === "number"), direct_subgroups: value.direct_subgroups.filter((v): v is number => typeof v === "number") };
  }
  return undefined;
}

/** A time limit in seconds (null: none). */
function limitSeconds(key: string): number | null {
  const value = setting(key);
  return typeof value === "number" && value > 0 ? value : null;
}

function withinLimit(message: Message, key: string, nowSeconds: number): boolean {
  const limit = limitSeconds(key);
  return limit === null || nowSeconds - message.timestamp <= limit;
}

/** Whether the content of a message may be edited by this user now. */
export function canEditContent(message: Message, myId: number, nowSeconds = Date.now() / 1000): boolean {
  if (setting("realm_allow_message_editing") === false) return false;
  return message.sender_id === myId && withinLimit(message, "realm_message_content_edit_limit_seconds", nowSeconds);
}

/** Moderators and above (role 300 and lower numbers) are not bound by the move time limits. */
const MODERATOR_ROLE = 300;

/**
 * Whether the topic of a channel message may be changed by this user (unknown group membership:
 * offered): the realm's group, and for non-moderators the move time limit.
 */
export function canEditTopic(message: Message, myId: number, nowSeconds = Date.now() / 1000): boolean {
  if (message.type !== "stream") return false;
  if (inGroupSetting(groupSetting("realm_can_move_messages_between_topics_group"), myId) === false) return false;
  const role = users.value.get(myId)?.role;
  return (role !== undefined && role <= MODERATOR_ROLE) || withinLimit(message, "realm_move_messages_within_stream_limit_seconds", nowSeconds);
}

/**
 * Whether this user may move a channel message to another channel (unknown group membership:
 * offered): the realm's can_move_messages_between_channels_group, and for non-moderators the
 * time limit for moving between channels. The channel's own move settings are the server's to check.
 */
export function canMoveToChannel(message: Message, myId: number, nowSeconds = Date.now() / 1000): boolean {
  if (message.type !== "stream") return false;
  if (inGroupSetting(groupSetting("realm_can_move_messages_between_channels_group"), myId) === false) return false;
  const role = users.value.get(myId)?.role;
  return (role !== undefined && role <= MODERATOR_ROLE) || withinLimit(message, "realm_move_messages_between_streams_limit_seconds", nowSeconds);
}

/**
 * What the realm's move settings let this user do at all (unknown group membership: allowed):
 * move messages to other topics, and to other channels. Time limits and the channels' own
 * settings are the server's to check.
 */
export function moveRights(myId: number): { topics: boolean; channels: boolean } {
  return {
    topics: inGroupSetting(groupSetting("realm_can_move_messages_between_topics_group"), myId) !== false,
    channels: inGroupSetting(groupSetting("realm_can_move_messages_between_channels_group"), myId) !== false,
  };
}

/**
 * Whether the organization shows a message's edit history (upstream's
 * message_edit_history_visibility_policy: "all", "moves_only" or "none"), and the message has one
 * to show: edited (all), or moved.
 */
export function canViewHistory(message: Message): boolean {
  if (setting("realm_allow_edit_history") === false) return false;
  const policy = setting("realm_message_edit_history_visibility_policy");
  if (policy === "none") return false;
  const moved = message.last_moved_timestamp !== undefined;
  return moved || (policy !== "moves_only" && message.last_edit_timestamp !== undefined);
}

/** Whether the organization shows read receipts. */
export function readReceiptsEnabled(): boolean {
  return setting("realm_enable_read_receipts") === true;
}

/** Whether this user may delete a message now (false while the groups are not loaded). */
export function canDelete(message: Message, myId: number, nowSeconds = Date.now() / 1000): boolean {
  if (inGroupSetting(groupSetting("realm_can_delete_any_message_group"), myId) === true) return true;
  if (message.sender_id !== myId) return false;
  return inGroupSetting(groupSetting("realm_can_delete_own_message_group"), myId) === true && withinLimit(message, "realm_message_content_delete_limit_seconds", nowSeconds);
}

/** The largest upload the server takes, in bytes (null: not announced). */
export function maxUploadBytes(): number | null {
  const mib = setting("max_file_upload_size_mib");
  return typeof mib === "number" && mib > 0 ? mib * 1024 * 1024 : null;
}
