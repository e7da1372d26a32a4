/** Applies server events to the state: one case per event kind the app shows. */
import { batch } from "@preact/signals";
import type { Message, ServerEvent } from "../api/types.ts";
import { applyRealmEvent } from "./admin.ts";
import { defaultChannelIds } from "./channels.ts";
import { applyRealmExports } from "./exports.ts";
import { applyComposeToolsEvent } from "./compose-tools.ts";
import * as feed from "./feed.ts";
import { applyMutedUsers, applyUserTopic, inMutedTopic } from "./muting.ts";
import { notifyOf } from "./notifications.ts";
import { applyPresence } from "./presence.ts";
import { applyProfileFields, updatedUser } from "./profile.ts";
import { applyTyping } from "./typing.ts";
import { dmKey, dmUserIds } from "./narrow.ts";
import { addRecentMessage, moveRecent, removeRecent } from "./recent.ts";
import { applyRealmSettings, channels, me, recentDms, setEntry, settings, subscriptions, topics, users } from "./store.ts";
import * as unread from "./unread.ts";
import { applyUserStatus } from "./user-status.ts";

function onMessage(message: Message, myId: number): void {
  unread.addMessage(message, myId);
  feed.addLive(message, myId);
  addRecentMessage(message, myId);
  notifyOf(message, myId, feed.narrow.value);
  if (message.type === "private") {
    const userIds = dmUserIds(message, myId);
    setEntry(recentDms, dmKey(userIds), { userIds, maxId: message.id });
  } else if (message.stream_id !== undefined) {
    const list = topics.value.get(message.stream_id);
    if (list) {
      const rest = list.filter((t) => t.name.toLowerCase() !== message.subject.toLowerCase());
      setEntry(topics, message.stream_id, [{ name: message.subject, max_id: message.id }, ...rest]);
    }
  }
}

function onFlags(event: Extract<ServerEvent, { type: "update_message_flags" }>, myId: number): void {
  const on = event.op === "add";
  feed.setFlag(event.messages, event.flag, on, event.all);
  if (event.flag !== "read") return;
  if (on && event.all) unread.clearAll();
  else if (on) unread.removeIds(event.messages);
  else if (event.message_details) unread.restore(event.message_details, myId);
}

function onUpdateMessage(event: Extract<ServerEvent, { type: "update_message" }>, myId: number): void {
  const { rendered_content: html, subject, new_stream_id: streamId } = event;
  if (html !== undefined) {
    feed.updateMessages([event.message_id], (m) => ({ ...m, content: html, last_edit_timestamp: event.rendering_only ? m.last_edit_timestamp : event.edit_timestamp }));
  }
  if (subject !== undefined || streamId !== undefined) {
    feed.updateMessages(event.message_ids, (m) => ({ ...m, subject: subject ?? m.subject, stream_id: streamId ?? m.stream_id, last_moved_timestamp: event.edit_timestamp }));
    unread.moveIds(event.message_ids, { streamId, topic: subject });
    feed.dropMovedOut(event.message_ids, myId);
    moveRecent(event.message_ids, { streamId, topic: subject });
  }
}

function onSubscription(event: Extract<ServerEvent, { type: "subscription" }>): void {
  if (event.op === "add") {
    for (const s of event.subscriptions) {
      setEntry(subscriptions, s.stream_id, s);
      setEntry(channels, s.stream_id, s);
    }
  }
  else if (event.op === "remove") for (const s of event.subscriptions) setEntry(subscriptions, s.stream_id, undefined);
  else {
    const sub = subscriptions.value.get(event.stream_id);
    if (sub && event.property in sub) setEntry(subscriptions, event.stream_id, { ...sub, [event.property]: event.value });
  }
}

/** Channel changes: archived (a delete, or is_archived) leave the sidebar; renames and the like update it. */
function onStream(event: Extract<ServerEvent, { type: "stream" }>): void {
  if (event.op === "delete") {
    for (const s of event.streams) {
      setEntry(subscriptions, s.stream_id, undefined);
      setEntry(channels, s.stream_id, undefined);
    }
  } else if (event.op === "update") {
    const channel = channels.value.get(event.stream_id);
    if (channel !== undefined && event.property in channel) setEntry(channels, event.stream_id, { ...channel, [event.property]: event.value });
    const sub = subscriptions.value.get(event.stream_id);
    if (sub === undefined) return;
    if (event.property in sub) setEntry(subscriptions, event.stream_id, { ...sub, [event.property]: event.value });
  } else {
    // A channel created without the user: the browser lists it; only "subscription add" puts it in the sidebar.
    for (const s of event.streams) setEntry(channels, s.stream_id, s);
  }
}

/** Applies a batch of events in one render. */
export function applyEvents(events: readonly ServerEvent[]): void {
  const myId = me.value?.user_id;
  if (myId === undefined) return;
  batch(() => {
    for (const event of events) {
      switch (event.type) {
        case "message":
          onMessage({ ...event.message, flags: event.flags }, myId);
          break;
        case "update_message_flags":
          onFlags(event, myId);
          break;
        case "update_message":
          onUpdateMessage(event, myId);
          break;
        case "delete_message": {
          const ids = event.message_ids ?? (event.message_id === undefined ? [] : [event.message_id]);
          feed.removeMessages(ids);
          unread.removeIds(ids);
          removeRecent(ids);
          break;
        }
        case "reaction":
          feed.react(event.message_id, event.op, { user_id: event.user_id, emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type });
          break;
        case "subscription":
          onSubscription(event);
          break;
        case "realm_user": {
          const known = users.value.get(event.person.user_id);
          if (event.op === "add") setEntry(users, event.person.user_id, event.person);
          else if (event.op === "remove") {
            if (known) setEntry(users, known.user_id, { ...known, is_active: false });
            break;
          }
          else if (known) setEntry(users, known.user_id, updatedUser(known, event.person));
          // The top bar shows the signed-in user's own name.
          const self = me.value;
          const name = event.op === "update" ? event.person.full_name : undefined;
          if (self !== null && event.person.user_id === self.user_id && name !== undefined) me.value = { ...self, full_name: name };
          break;
        }
        case "realm":
          applyRealmEvent(event);
          applyRealmSettings(event.op === "update" ? { [event.property]: event.value } : event.data);
          break;
        case "stream":
          onStream(event);
          break;
        case "typing":
          applyTyping(event, myId);
          break;
        case "presence":
          applyPresence(event.presences);
          break;
        case "user_status":
          applyUserStatus(event.user_id, event);
          break;
        case "custom_profile_fields":
          applyProfileFields(event.fields);
          break;
        case "user_topic":
          applyUserTopic(event);
          // A topic muted while the combined feed shows it leaves the feed, as upstream.
          if (feed.narrow.value.kind === "feed") feed.removeMessages(feed.messages.value.filter(inMutedTopic).map((m) => m.id));
          break;
        case "muted_users":
          applyMutedUsers(event.muted_users);
          break;
        case "default_streams":
          defaultChannelIds.value = event.default_streams;
          break;
        case "user_settings":
          settings.value = { ...settings.value, [event.property]: event.value };
          break;
        case "realm_export":
          applyRealmExports(event.exports);
          break;
        case "drafts":
        case "scheduled_messages":
        case "saved_snippets":
          applyComposeToolsEvent(event, myId);
          break;
        default:
          break;
      }
    }
  });
}
