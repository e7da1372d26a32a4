/**
 * The `with` operator (FL 271): a narrow naming a message is rewritten to that message's current
 * conversation, so links keep working after the message moves (Zulip's
 * update_narrow_terms_containing_with_operator). Only GET /messages applies it.
 */
import type { MessageRow } from "../store/schema/database.ts";
import { BadNarrowError } from "../errors.ts";
import { InvalidOperatorCombinationError } from "../errors.ts";
import type { NarrowTerm } from "./parse.ts";

const CONVERSATION_OPERATORS: ReadonlySet<string> = new Set(["stream", "channel", "topic", "dm", "pm-with"]);

/** Whether the terms already name one conversation (a DM, or a channel and a topic). */
function definesConversation(terms: readonly NarrowTerm[]): boolean {
  const has = (ops: string[]) => terms.some((t) => ops.includes(t.operator));
  return has(["dm", "pm-with"]) || (has(["stream", "channel"]) && has(["topic"]));
}

/**
 * Replaces a `with` term by the conversation of its message. `access` returns the message when the
 * caller may read it, and `directMembers` the users of a direct conversation.
 */
export async function applyWithOperator(
  terms: readonly NarrowTerm[],
  access: (messageId: number) => Promise<MessageRow | null>,
  directMembers: (recipientId: number) => Promise<number[]>,
): Promise<NarrowTerm[]> {
  const withTerms = terms.filter((t) => t.operator === "with");
  if (withTerms.length > 1) throw new InvalidOperatorCombinationError("Duplicate 'with' operators.");
  if (withTerms.length === 0) return [...terms];
  const rest = terms.filter((t) => t.operator !== "with");
  const text = String(withTerms[0].operand).trim();
  if (!/^[+-]?\d+$/.test(text)) throw new BadNarrowError("Invalid 'with' operator");
  const message = await access(Number(text));
  if (!message) {
    if (definesConversation(rest)) return rest;
    throw new BadNarrowError("Invalid 'with' operator");
  }
  const others = rest.filter((t) => !CONVERSATION_OPERATORS.has(t.operator));
  if (message.stream_id !== null) {
    return [{ operator: "channel", operand: message.stream_id, negated: false }, { operator: "topic", operand: message.topic, negated: false }, ...others];
  }
  return [{ operator: "dm", operand: await directMembers(message.recipient_id), negated: false }, ...others];
}
