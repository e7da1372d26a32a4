/** What a queue asked for at POST /register: its options and the client's capabilities. */

/** SPEC.md's client_capabilities, each defaulting to false. */
export type ClientCapabilities = {
  notification_settings_null: boolean;
  bulk_message_deletion: boolean;
  user_avatar_url_field_optional: boolean;
  stream_typing_notifications: boolean;
  user_settings_object: boolean;
  linkifier_url_template: boolean;
  user_list_incomplete: boolean;
  include_deactivated_groups: boolean;
  archived_channels: boolean;
  empty_topic_name: boolean;
  simplified_presence_events: boolean;
};

/** A queue's registration options (POST /register parameters, defaults applied). */
export type QueueOptions = {
  apply_markdown: boolean;
  client_gravatar: boolean;
  include_subscribers: "true" | "false" | "partial";
  slim_presence: boolean;
  presence_history_limit_days: number | null;
  all_public_streams: boolean;
  /** [operator, operand] pairs filtering message events. */
  narrow: [string, string][];
  capabilities: ClientCapabilities;
  /** Event types the queue receives; null for all. */
  event_types: string[] | null;
  /** Event types whose initial data is fetched; null for all. */
  fetch_event_types: string[] | null;
};
