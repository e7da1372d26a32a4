/** Queue options for unit tests that drive the queue manager directly. */
import type { ClientCapabilities, QueueOptions } from "../../src/events/queue-options.ts";

/** Options as a plain client registers them (no markdown, gravatar hashes, no capabilities), with `overrides`. */
export function queueOptions(overrides: Partial<QueueOptions> = {}, capabilities: Partial<ClientCapabilities> = {}): QueueOptions {
  return {
    apply_markdown: false,
    client_gravatar: true,
    include_subscribers: "false",
    slim_presence: false,
    presence_history_limit_days: null,
    all_public_streams: false,
    narrow: [],
    event_types: null,
    fetch_event_types: null,
    ...overrides,
    capabilities: {
      notification_settings_null: false, bulk_message_deletion: false, user_avatar_url_field_optional: false,
      stream_typing_notifications: false, user_settings_object: false, linkifier_url_template: false,
      user_list_incomplete: false, include_deactivated_groups: false, archived_channels: false,
      empty_topic_name: false, simplified_presence_events: false, ...capabilities,
    },
  };
}
