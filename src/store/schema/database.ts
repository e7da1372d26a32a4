/** Table types of the database, shared by both engines. Booleans are stored as 0/1 integers. */
import type { Insertable, Selectable, Updateable } from "kysely";
import type { CustomProfileFieldTable, LinkifierTable, RealmEmojiTable, RealmPlaygroundTable, RealmTable } from "./realm.ts";
import type { CustomProfileValueTable, SavedSnippetTable, ServiceTable, UserStatusTable, UserTable } from "./users.ts";
import type { UserGroupMemberTable, UserGroupSubgroupTable, UserGroupTable } from "./groups.ts";
import type { DefaultStreamTable, StreamEmailAddressTable, StreamTable, SubscriptionPeriodTable, SubscriptionTable, UserTopicTable } from "./channels.ts";
import type {
  AttachmentMessageTable,
  AttachmentTable,
  DirectGroupMemberTable,
  DirectGroupTable,
  MessageTable,
  ReactionTable,
  RecipientTable,
  SubmessageTable,
  UnreadWatermarkTable,
  UserMessageFlagTable,
} from "./messages.ts";
import type { ScheduledMessageTable, DraftTable } from "./drafts.ts";
import type { PresenceSequenceTable, UserPresenceTable } from "./presence.ts";
import type { AlertWordTable, MutedUserTable } from "./alert-words.ts";
import type { RealmUserDefaultsTable } from "./settings.ts";
import type { ChannelFolderTable, NavigationViewTable } from "./sidebar.ts";
import type { OutgoingWebhookJobTable } from "./webhooks.ts";
import type { DigestEmailTable, EmailNotifyJobTable, MissedMessageEmailTable } from "./email-notifications.ts";
import type { PushActiveNotificationTable, PushDeviceTable, PushDeviceTokenTable, PushRelayJobTable } from "./push.ts";
import type { EmailJobTable, InviteTable, RealmDomainTable } from "./invites.ts";
import type { SessionTable } from "./sessions.ts";
import type { AccountTokenTable } from "./account-tokens.ts";
import type { RealmExportTable } from "./realm-exports.ts";

export type { Flag } from "./realm.ts";
export type { MessageTable, UserTopicTable, SubmessageTable, StreamTable, SubscriptionTable, UserGroupTable, UserStatusTable, RealmPlaygroundTable, LinkifierTable, RealmEmojiTable, SavedSnippetTable, AttachmentTable, CustomProfileFieldTable, ServiceTable, UserTable, RealmTable };
export { MESSAGE_COLUMNS, MESSAGE_FLAG, RECIPIENT_TYPE } from "./messages.ts";

/** The whole database, as Kysely sees it. */
export interface Database {
  realms: RealmTable;
  users: UserTable;
  services: ServiceTable;
  streams: StreamTable;
  subscriptions: SubscriptionTable;
  user_groups: UserGroupTable;
  user_group_members: UserGroupMemberTable;
  user_group_subgroups: UserGroupSubgroupTable;
  custom_profile_fields: CustomProfileFieldTable;
  custom_profile_values: CustomProfileValueTable;
  recipients: RecipientTable;
  direct_groups: DirectGroupTable;
  direct_group_members: DirectGroupMemberTable;
  messages: MessageTable;
  user_message_flags: UserMessageFlagTable;
  subscription_periods: SubscriptionPeriodTable;
  unread_watermarks: UnreadWatermarkTable;
  user_topics: UserTopicTable;
  reactions: ReactionTable;
  submessages: SubmessageTable;
  user_status: UserStatusTable;
  realm_playgrounds: RealmPlaygroundTable;
  linkifiers: LinkifierTable;
  realm_emoji: RealmEmojiTable;
  saved_snippets: SavedSnippetTable;
  attachments: AttachmentTable;
  attachment_messages: AttachmentMessageTable;
  drafts: DraftTable;
  scheduled_messages: ScheduledMessageTable;
  user_presence: UserPresenceTable;
  presence_sequence: PresenceSequenceTable;
  alert_words: AlertWordTable;
  muted_users: MutedUserTable;
  realm_user_defaults: RealmUserDefaultsTable;
  default_streams: DefaultStreamTable;
  stream_email_addresses: StreamEmailAddressTable;
  navigation_views: NavigationViewTable;
  channel_folders: ChannelFolderTable;
  outgoing_webhook_jobs: OutgoingWebhookJobTable;
  push_device_tokens: PushDeviceTokenTable;
  push_devices: PushDeviceTable;
  push_relay_jobs: PushRelayJobTable;
  push_active_notifications: PushActiveNotificationTable;
  email_notify_jobs: EmailNotifyJobTable;
  missed_message_emails: MissedMessageEmailTable;
  digest_emails: DigestEmailTable;
  invites: InviteTable;
  email_jobs: EmailJobTable;
  realm_domains: RealmDomainTable;
  sessions: SessionTable;
  account_tokens: AccountTokenTable;
  // Organization data exports.
  realm_exports: RealmExportTable;
}

/** A stored message. */
export type MessageRow = Selectable<MessageTable>;
/** A message to insert. */
export type NewMessage = Insertable<MessageTable>;
/** A stored reaction. */
export type ReactionRow = Selectable<ReactionTable>;

/** A stored realm. */
export type RealmRow = Selectable<RealmTable>;
/** A stored user or bot. */
export type UserRow = Selectable<UserTable>;
/** A user to insert. */
export type NewUser = Insertable<UserTable>;
/** Columns of a user to change. */
export type UserUpdate = Updateable<UserTable>;
/** A stored channel. */
export type StreamRow = Selectable<StreamTable>;
/** A channel to insert. */
export type NewStream = Insertable<StreamTable>;
/** A stored subscription. */
export type SubscriptionRow = Selectable<SubscriptionTable>;
/** A stored user group. */
export type UserGroupRow = Selectable<UserGroupTable>;
/** A stored bot service. */
export type ServiceRow = Selectable<ServiceTable>;
/** A stored custom profile field. */
export type CustomProfileFieldRow = Selectable<CustomProfileFieldTable>;
