/**
 * What GET /events hands a client: a queue's pending events, kept as the queue holds them (events that
 * several queues share, with consecutive ids) rather than as one `{ id, ...event }` copy per
 * queue, and written as JSON from each event's UTF-8 bytes, built once per event object however
 * many queues hold it. A message delivered to 10,000 queues is stringified and encoded once per
 * variant (flags, formats), not 10,000 times; each answer copies those bytes into its own body
 * rather than building, and then encoding, a string of its own.
 */
import type { ApiEvent, QueuedEvent } from "./types.ts";

/** A piece of JSON text: a string, or UTF-8 bytes. */
export type JsonPiece = string | Uint8Array;

/**
 * Each event's JSON text without its opening brace (`"type":"…",…}`) as UTF-8, by event object.
 * Events are never changed once published (queues share them), so the bytes stay true; entries
 * go with their events.
 */
const eventBytes = new WeakMap<ApiEvent, Buffer>();

function bytesAfterBrace(event: ApiEvent): Buffer {
  let bytes = eventBytes.get(event);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(event).slice(1));
    eventBytes.set(event, bytes);
  }
  return bytes;
}

/** A queue's pending events, oldest first, with consecutive ids from `firstId`. */
export class PendingEvents {
  constructor(
    readonly firstId: number,
    readonly events: readonly ApiEvent[],
  ) {}

  /** The events as a client receives them, each with its id first. */
  toArray(): QueuedEvent[] {
    // The id first: a property after a spread takes V8's slow path (see actions/context.ts).
    return this.events.map((event, k) => ({ id: this.firstId + k, ...event }));
  }

  /**
   * Appends to `pieces` the text of `JSON.stringify(this.toArray())`, without building the
   * copies: each event as `{"id":N,` and the event's shared bytes after its opening brace.
   */
  appendJson(pieces: JsonPiece[]): void {
    if (this.events.length === 0) {
      pieces.push("[]");
      return;
    }
    for (let k = 0; k < this.events.length; k++) {
      const rest = bytesAfterBrace(this.events[k]);
      const open = k === 0 ? "[" : ",";
      // An event with no members is `}` alone: `{"id":N}`.
      pieces.push(rest.length === 1 ? `${open}{"id":${this.firstId + k}` : `${open}{"id":${this.firstId + k},`, rest);
    }
    pieces.push("]");
  }

  /** Serialised as the list it stands for (JSON.stringify of an answer holding it). */
  toJSON(): QueuedEvent[] {
    return this.toArray();
  }
}
