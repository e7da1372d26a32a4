/** `stream` events: channels created, archived (deleted) and changed. */
import type { ApiStream } from "../../present/streams.ts";
import type { ClientCapabilities } from "../queue-options.ts";

/** Channels that became visible to the recipients. */
type StreamCreateEvent = { type: "stream"; op: "create"; streams: ApiStream[] };
/** Channels archived or no longer visible to the recipients. */
type StreamDeleteEvent = { type: "stream"; op: "delete"; streams: ApiStream[] };
/** One changed property of a channel. */
export type StreamUpdateEvent = {
  type: "stream";
  op: "update";
  stream_id: number;
  name: string;
  property: string;
  value: unknown;
  rendered_description?: string;
  history_public_to_subscribers?: boolean;
  is_web_public?: boolean;
};
/** Every stream event. */
export type StreamEvent = StreamCreateEvent | StreamDeleteEvent | StreamUpdateEvent;

/** Channels that became visible (created, unarchived, or newly accessible). */
export function streamCreateEvent(streams: ApiStream[]): StreamCreateEvent {
  return { type: "stream", op: "create", streams };
}

/** Channels that were archived or became invisible to the recipients. */
export function streamDeleteEvent(streams: ApiStream[]): StreamDeleteEvent {
  return { type: "stream", op: "delete", streams };
}

/** One changed property of a channel; `name` is the channel's name before the change. */
export function streamUpdateEvent(
  stream: { stream_id: number; name: string },
  property: string,
  value: unknown,
  extra: Pick<StreamUpdateEvent, "rendered_description" | "history_public_to_subscribers" | "is_web_public"> = {},
): StreamUpdateEvent {
  return { type: "stream", op: "update", stream_id: stream.stream_id, name: stream.name, property, value, ...extra };
}

/**
 * How a queue sees a `stream` event (FL 315): a client that declared `archived_channels` keeps
 * archived channels, so their archiving reaches it as `update` of `is_archived` rather than a
 * `delete`; other clients get the `delete`. Meant for the `stream` entry of events/adapters.ts.
 */
export function streamEventForQueue(event: StreamEvent, options: { capabilities: Pick<ClientCapabilities, "archived_channels"> }): StreamEvent[] {
  if (event.op !== "delete" || !options.capabilities.archived_channels) return [event];
  const archived = event.streams.filter((s) => s.is_archived).map((s) => streamUpdateEvent(s, "is_archived", true));
  const gone = event.streams.filter((s) => !s.is_archived);
  return gone.length > 0 ? [...archived, { ...event, streams: gone }] : archived;
}

/** The realm's default channels changed: the full list of their ids (FL 330; dictionaries before). */
export type DefaultStreamsEvent = { type: "default_streams"; default_streams: number[] };

/** The realm's default channels, after a change. */
export function defaultStreamsEvent(streamIds: number[]): DefaultStreamsEvent {
  return { type: "default_streams", default_streams: streamIds };
}
