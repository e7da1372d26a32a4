/**
 * Every event the server sends, as a union keyed by `type` (and `op`). Each resource area
 * declares its own members in `kinds/<area>.ts`; queues add `id` when they store an event.
 */
import type { AlertWordsEvent, MutedUsersEvent } from "./kinds/alert-words.ts";
import type { AttachmentEvent } from "./kinds/attachments.ts";
import type { RealmBotEvent } from "./kinds/bots.ts";
import type { HeartbeatEvent } from "./kinds/core.ts";
import type { DraftsEvent, ScheduledMessagesEvent } from "./kinds/drafts.ts";
import type { ChannelFolderEvent, NavigationViewEvent } from "./kinds/sidebar.ts";
import type { InvitesChangedEvent } from "./kinds/invites.ts";
import type { UpdateMessageFlagsEvent } from "./kinds/message-flags.ts";
import type { MessageUpdateEvent } from "./kinds/message-updates.ts";
import type { AnyMessageEvent } from "./kinds/messages.ts";
import type { OrganizationEvent } from "./kinds/organization.ts";
import type { PresenceEvent } from "./kinds/presence.ts";
import type { PushDeviceEvent } from "./kinds/push.ts";
import type { ReactionEvent } from "./kinds/reactions.ts";
import type { RemindersEvent } from "./kinds/reminders.ts";
import type { RealmDomainsEvent } from "./kinds/realm-domains.ts";
import type { RealmEmojiEvent } from "./kinds/realm-emoji.ts";
import type { RealmExportConsentEvent, RealmExportEvent } from "./kinds/realm-exports.ts";
import type { SavedSnippetsEvent } from "./kinds/snippets.ts";
import type { DefaultStreamsEvent, StreamEvent } from "./kinds/streams.ts";
import type { SubmessageEvent } from "./kinds/submessages.ts";
import type { SubscriptionEvent } from "./kinds/subscriptions.ts";
import type { TypingEditMessageEvent, TypingEvent } from "./kinds/typing.ts";
import type { UserGroupEvent } from "./kinds/user-groups.ts";
import type { UserSettingsEvent } from "./kinds/user-settings.ts";
import type { MutedTopicsEvent, UserTopicEvent } from "./kinds/user-topics.ts";
import type { RealmUserEvent } from "./kinds/users.ts";

/** Any event an action publishes or a queue holds. */
export type ApiEvent =
  | HeartbeatEvent
  | DraftsEvent
  | ScheduledMessagesEvent
  | RemindersEvent
  | PushDeviceEvent
  | AlertWordsEvent
  | MutedUsersEvent
  | AttachmentEvent
  | RealmBotEvent
  | UpdateMessageFlagsEvent
  | MessageUpdateEvent
  | AnyMessageEvent
  | OrganizationEvent
  | PresenceEvent
  | ReactionEvent
  | RealmEmojiEvent
  | SavedSnippetsEvent
  | StreamEvent
  | DefaultStreamsEvent
  | SubmessageEvent
  | SubscriptionEvent
  | TypingEvent
  | TypingEditMessageEvent
  | UserGroupEvent
  | UserSettingsEvent
  | UserTopicEvent
  | MutedTopicsEvent
  | RealmUserEvent
  | NavigationViewEvent
  | ChannelFolderEvent
  | InvitesChangedEvent
  | RealmDomainsEvent
  | RealmExportEvent
  | RealmExportConsentEvent;

/** The `type` of some event. */
export type ApiEventType = ApiEvent["type"];

/** The events of one type. */
export type ApiEventOf<T extends ApiEventType> = Extract<ApiEvent, { type: T }>;

/** Every event type once; the compiler keeps it equal to the union's. */
const EVENT_TYPES: { readonly [T in ApiEventType]: true } = {
  heartbeat: true,
  drafts: true,
  scheduled_messages: true,
  reminders: true,
  push_device: true,
  alert_words: true,
  muted_users: true,
  attachment: true,
  realm_bot: true,
  update_message_flags: true,
  update_message: true,
  delete_message: true,
  message: true,
  user_status: true,
  custom_profile_fields: true,
  realm_playgrounds: true,
  realm_linkifiers: true,
  user_settings: true,
  update_global_notifications: true,
  update_display_settings: true,
  realm_user_settings_defaults: true,
  realm: true,
  presence: true,
  reaction: true,
  realm_emoji: true,
  saved_snippets: true,
  stream: true,
  default_streams: true,
  submessage: true,
  subscription: true,
  typing: true,
  typing_edit_message: true,
  user_group: true,
  user_topic: true,
  muted_topics: true,
  realm_user: true,
  navigation_view: true,
  channel_folder: true,
  invites_changed: true,
  realm_domains: true,
  realm_export: true,
  realm_export_consent: true,
};

/**
 * Whether a value read back from JSON (the Redis bus) is an event. Only the `type` is checked:
 * bus messages come from processes running this code, which built them with the kinds' builders.
 */
export function isApiEvent(value: unknown): value is ApiEvent {
  return value !== null && typeof value === "object" && "type" in value && typeof value.type === "string" && Object.hasOwn(EVENT_TYPES, value.type);
}

/** An event as a queue holds and returns it: with the queue's increasing `id`. */
export type QueuedEvent = ApiEvent & { id: number };

/** An event with the recipients chosen by the action that caused it. */
export type Delivery = {
  realmId: number;
  event: ApiEvent;
  /** Distinct: every publisher removes repeats (actions/context.ts, typing), and the queues rely on it. */
  userIds: number[];
  /**
   * Also deliver to every queue of the realm registered with `all_public_streams` (messages
   * and updates in public channels reach those queues whether or not their user subscribes).
   */
  allPublicStreamsQueues?: boolean;
};
