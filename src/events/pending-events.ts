/**
 * What GET /events hands a client: a queue's pending events, kept as the queue holds them (events that
 * several queues share, with consecutive ids) rather than as one `{ id, ...event }` copy per
 * queue, and written as JSON from each event's text, built once per event object however many
 * queues hold it, with its length in UTF-8 bytes. A message delivered to 10,000 queues is
 * stringified and measured once per variant (flags, formats), not 10,000 times.
 */
import type { ApiEvent, QueuedEvent } from "./types.ts";

/**
 * JSON text being built from pieces, with its length in UTF-8 bytes counted as it grows: an
 * answer's Content-Length without encoding (or flattening) the text before it is written.
 */
export class JsonText {
  text = "";
  bytes = 0;

  /** Appends text of ASCII characters only: as many bytes as characters. */
  ascii(piece: string): this {
    this.text += piece;
    this.bytes += piece.length;
    return this;
  }

  /** Appends any text. */
  any(piece: string): this {
    this.text += piece;
    this.bytes += Buffer.byteLength(piece);
    return this;
  }

  /** Appends another JSON text. */
  append(other: JsonText): this {
    this.text += other.text;
    this.bytes += other.bytes;
    return this;
  }
}

/**
 * Each event's JSON text without its opening brace (`"type":"…",…}`), by event object. Events are
 * never changed once published (queues share them), so the text stays true; entries go with
 * their events.
 */
const eventTexts = new WeakMap<ApiEvent, JsonText>();

function textAfterBrace(event: ApiEvent): JsonText {
  let text = eventTexts.get(event);
  if (text === undefined) {
    text = new JsonText().any(JSON.stringify(event).slice(1));
    eventTexts.set(event, text);
  }
  return text;
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
   * Appends the text of `JSON.stringify(this.toArray())` to `out`, without building the copies:
   * each event as `{"id":N,` and the event's shared text after its opening brace.
   */
  appendJson(out: JsonText): void {
    if (this.events.length === 0) {
      out.ascii("[]");
      return;
    }
    for (let k = 0; k < this.events.length; k++) {
      const rest = textAfterBrace(this.events[k]);
      const open = k === 0 ? "[" : ",";
      // An event with no members is `}` alone: `{"id":N}`.
      out.ascii(rest.text === "}" ? `${open}{"id":${this.firstId + k}` : `${open}{"id":${this.firstId + k},`).append(rest);
    }
    out.ascii("]");
  }

  /** Serialised as the list it stands for (JSON.stringify of an answer holding it). */
  toJSON(): QueuedEvent[] {
    return this.toArray();
  }
}
