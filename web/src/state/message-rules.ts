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
