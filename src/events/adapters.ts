/**
 * Per-queue adaptation of events: some clients declared (or did not declare) capabilities at
 * POST /register that change how an event reaches them. Each entry takes the event and the
 * queue's options and returns what that queue receives: the event, a rewritten event, several
 * events, or null for nothing. Areas add entries here as their events need them.
 */
import type { QueueOptions } from "./queue-options.ts";
import type { ApiEvent, ApiEventOf, ApiEventType } from "./types.ts";
import { deleteMessageEventForQueue } from "./kinds/message-updates.ts";
import { messageEventForQueue } from "./kinds/messages.ts";
import { presenceEventForQueue } from "./kinds/presence.ts";
import { streamEventForQueue } from "./kinds/streams.ts";
import { typingEventForQueue } from "./kinds/typing.ts";
import { userGroupEventForQueue } from "./kinds/user-groups.ts";

/** The queue an event is being adapted for: its id and its user's. */
type QueueTarget = { id: string; userId: number };

/** What one queue receives for an event of type `T`. */
type EventAdapter<T extends ApiEventType> = (event: ApiEventOf<T>, options: QueueOptions, target: QueueTarget) => ApiEvent | ApiEvent[] | null;

/** At most one adapter per event type, each taking that type's events. */
type EventAdapters = { readonly [T in ApiEventType]?: EventAdapter<T> };

/** Sends the event only to queues whose client declared the capability. */
const onlyWith =
  (capability: keyof QueueOptions["capabilities"]) =>
  <E extends ApiEvent>(event: E, options: QueueOptions): E | null =>
    options.capabilities[capability] ? event : null;

/** Sends the event only to queues whose client did not declare the capability. */
const onlyWithout =
  (capability: keyof QueueOptions["capabilities"]) =>
  <E extends ApiEvent>(event: E, options: QueueOptions): E | null =>
    options.capabilities[capability] ? null : event;

/** Adapters by event type; types without an entry reach every accepting queue unchanged. */
const EVENT_ADAPTERS: EventAdapters = {
  // linkifier_url_template (FL 176): older clients get no realm_linkifiers events at all.
  realm_linkifiers: onlyWith("linkifier_url_template"),
  // user_settings_object (FL 89): the legacy settings events go only to clients without it.
  update_display_settings: onlyWithout("user_settings_object"),
  update_global_notifications: onlyWithout("user_settings_object"),
  // bulk_message_deletion (FL 13): other clients get one event per deleted message.
  delete_message: deleteMessageEventForQueue,
  // stream_typing_notifications (FL 58): other clients get no channel typing events.
  typing: typingEventForQueue,
  // Group events have type `user_group` (`realm_user_groups` is only the register snapshot key);
  // include_deactivated_groups (FL 294) decides how deactivated groups reach a queue.
  user_group: userGroupEventForQueue,
  // archived_channels (FL 315): archiving is an is_archived update rather than a delete.
  stream: streamEventForQueue,
  // Per-queue message copies: flags of the queue's user, apply_markdown, client_gravatar, local id.
  message: messageEventForQueue,
  // simplified_presence_events (FL 419): the modern `presences` dict instead of the legacy fields.
  presence: presenceEventForQueue,
};

/** The adapter for events of type `T`, if it has one. */
function adapterFor<T extends ApiEventType>(type: T): EventAdapter<T> | undefined {
  return EVENT_ADAPTERS[type];
}

/** What one queue receives for `event`: the event as it is or rewritten, several events in order, or null for nothing. */
export function adaptForQueue(event: ApiEvent, options: QueueOptions, target: QueueTarget): ApiEvent | ApiEvent[] | null {
  const adapter = adapterFor(event.type);
  return adapter ? adapter(event, options, target) : event;
}
