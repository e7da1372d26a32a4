/**
 * What GET /events hands a client: a queue's pending events, kept as the queue holds them (events that
 * several queues share, with consecutive ids) rather than as one `{ id, ...event }` copy per
 * queue, and written as JSON from each event's text, built once per event object however many
 * queues hold it. A message delivered to 10,000 queues is stringified once per variant (flags,
 * formats), not 10,000 times.
 */
import type { ApiEvent, QueuedEvent } from "./types.ts";

/**
 * Each event's JSON text without its opening brace (`"type":"…",…}`), by event object. Events
 * are never changed once published (queues share them), so the text stays true; entries go
 * with their events.
 */
const eventTexts = new WeakMap<ApiEvent, string>();

function textAfterBrace(event: ApiEvent): string {
  let text = eventTexts.get(event);
  if (text === undefined) {
    text = JSON.stringify(event).slice(1);
    eventTexts.set(event, text);
  }
  return text;
}

/** The text of `JSON.stringify({ id, ...event })`, from the event's shared text. */
export function queuedEventJson(id: number, event: ApiEvent): string {
  const rest = textAfterBrace(event);
  return rest === "}" ? `{"id":${id}}` : `{"id":${id},${rest}`;
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

  /** `JSON.stringify(this.toArray())`, without building the copies. */
  json(): string {
    let text = "[";
    for (let k = 0; k < this.events.length; k++) text += (k === 0 ? "" : ",") + queuedEventJson(this.firstId + k, this.events[k]);
    return `${text}]`;
  }

  /** Serialised as the list it stands for (JSON.stringify of an answer holding it). */
  toJSON(): QueuedEvent[] {
    return this.toArray();
  }
}
