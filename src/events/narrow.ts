/**
 * The `narrow` filter of POST /register: which message events a queue receives. Only message
 * events are filtered; the terms are ANDed, and channel and topic names compare
 * case-insensitively, as in Zulip's event-queue narrows.
 */
import type { AnyMessageEvent } from "./kinds/messages.ts";
import type { ApiEvent } from "./types.ts";

/** One [operator, operand] term. */
export type NarrowTerm = [string, string];

/** Operators an event-queue narrow may use (Zulip refuses any other at register time). */
const SUPPORTED_OPERATORS: ReadonlySet<string> = new Set(["channel", "stream", "topic", "sender", "is"]);

/** Zulip marks resolved topics with this prefix. */
const RESOLVED_TOPIC_PREFIX = "✔ ";

/** The first operator a queue narrow cannot filter on, or null when every term is supported. */
export function unsupportedNarrowOperator(narrow: readonly NarrowTerm[]): string | null {
  return narrow.find(([operator]) => !SUPPORTED_OPERATORS.has(operator))?.[0] ?? null;
}

type MessageView = { type: string; channel: string; topic: string; senderEmail: string; flags: readonly string[] };

/** The fields a narrow looks at in a `message` event. */
function viewOf(event: AnyMessageEvent): MessageView {
  const { message } = event;
  return {
    type: message.type,
    channel: typeof message.display_recipient === "string" ? message.display_recipient : "",
    topic: message.subject,
    senderEmail: message.sender_email,
    flags: event.flags,
  };
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function matchesIs(view: MessageView, operand: string): boolean {
  switch (operand) {
    case "dm":
    case "private":
      return view.type === "private";
    case "starred":
      return view.flags.includes("starred");
    case "unread":
      return !view.flags.includes("read");
    case "mentioned":
      return view.flags.some((f) => f === "mentioned" || f === "stream_wildcard_mentioned" || f === "topic_wildcard_mentioned");
    case "alerted":
      return view.flags.includes("has_alert_word");
    case "resolved":
      return view.type === "stream" && view.topic.startsWith(RESOLVED_TOPIC_PREFIX);
    default:
      // Other `is:` operands do not restrict live events (as upstream).
      return true;
  }
}

function matchesTerm(view: MessageView, [operator, operand]: NarrowTerm): boolean {
  switch (operator) {
    case "channel":
    case "stream":
      return view.type === "stream" && sameName(view.channel, operand);
    case "topic":
      return view.type === "stream" && sameName(view.topic, operand);
    case "sender":
      return sameName(view.senderEmail, operand);
    case "is":
      return matchesIs(view, operand);
    default:
      return false;
  }
}

/** Whether an event passes the narrow: non-message events always do; an empty narrow passes all. */
export function eventMatchesNarrow(narrow: readonly NarrowTerm[], event: ApiEvent): boolean {
  if (event.type !== "message" || narrow.length === 0) return true;
  const view = viewOf(event);
  return narrow.every((term) => matchesTerm(view, term));
}
