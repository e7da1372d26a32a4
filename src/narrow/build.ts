/**
 * Narrow terms to conditions over `messages` (Zulip's NarrowBuilder): this file decides what each
 * term means and resolves its operands; store/messages/message-narrow.ts writes the SQL. A term only ever
 * removes messages: which messages the viewer may see at all is store/messages/narrow-visibility.ts's job.
 * Operand lookups happen here, in term order, so errors come in the order Zulip reports them.
 */
import { isGuest } from "../permissions/check.ts";
import { hasFlagSql, mentionedSql, unreadForSql } from "../store/messages/message-flags.ts";
import {
  allOfSql,
  allMessagesSql,
  directMessageSql,
  followedTopicSql,
  hasSql,
  inRecipientsSql,
  inStreamsSql,
  messageIdSql,
  noMessagesSql,
  recipientSql,
  senderSql,
  streamSql,
  termSql,
  topicPrefixSql,
  topicSql,
  type BuiltNarrow,
  type MessageCondition,
} from "../store/messages/message-narrow.ts";
import { findDirectConversation, sharedDirectRecipientIds } from "../store/messages/messages.ts";
import { personalHistorySql, visibleSql } from "../store/messages/narrow-visibility.ts";
import { streamIdsWhere } from "../store/channels/streams.ts";
import { BadNarrowError } from "../errors.ts";
import { canAccessStreamHistory, streamByOperand, userByOperand, type NarrowScope } from "./lookups.ts";
import { mutingSql } from "./muting.ts";
import { operandText, type NarrowTerm, type Operand } from "./parse.ts";
import { parseSearch } from "../model/search-words.ts";

export type { BuiltNarrow } from "../store/messages/message-narrow.ts";

/** Zulip's resolved-topic prefix. */
const RESOLVED_TOPIC_PREFIX = "✔ ";
/** The largest message id an `id` operand may name (Zulip's MAX_POSSIBLE_MESSAGE_ID). */
const MAX_MESSAGE_ID = 2147483647;
/** Zulip's fallback name of the empty topic; a topic operand equal to it means "" (FL 334). */
const EMPTY_TOPIC_FALLBACK_NAME = "general chat";

const CHANNEL_OPERATORS: ReadonlySet<string> = new Set(["channel", "stream"]);
const CHANNELS_OPERATORS: ReadonlySet<string> = new Set(["channels", "streams"]);

/** Tracks channel-only and direct-only terms: a narrow with both matches nothing and is refused. */
class KindCheck {
  private channel = false;
  private direct = false;
  note(kind: "channel" | "direct"): void {
    if (kind === "channel") this.channel = true;
    else this.direct = true;
    if (this.channel && this.direct) throw new BadNarrowError("No message can be both a channel message and direct message");
  }
}

type TermContext = { scope: NarrowScope; kinds: KindCheck; negated: boolean };

function stringOperand(operand: Operand): string {
  return typeof operand === "string" ? operand : operandText(operand);
}

function singleOperand(operand: Operand): string | number {
  return Array.isArray(operand) ? operandText(operand) : operand;
}

function byHas(operand: string): MessageCondition {
  if (operand === "reaction" || operand === "attachment" || operand === "image" || operand === "link") return hasSql(operand);
  throw new BadNarrowError(`unknown 'has' operand ${operand}`);
}

function byIs(ctx: TermContext, operand: string): MessageCondition {
  const userId = ctx.scope.viewer.id;
  switch (operand) {
    case "dm":
    case "private":
      // A negated is:dm means channel messages only.
      ctx.kinds.note(ctx.negated ? "channel" : "direct");
      return directMessageSql();
    case "starred":
      return hasFlagSql(userId, "starred");
    case "unread":
      return unreadForSql(userId);
    case "mentioned":
      return mentionedSql(userId);
    case "alerted":
      return hasFlagSql(userId, "has_alert_word");
    case "resolved":
      return topicPrefixSql(RESOLVED_TOPIC_PREFIX);
    case "followed":
      return followedTopicSql(userId);
    default:
      throw new BadNarrowError(`unknown 'is' operand ${operand}`);
  }
}

async function byChannel(ctx: TermContext, operand: Operand): Promise<MessageCondition> {
  if (!ctx.negated) ctx.kinds.note("channel");
  const stream = await streamByOperand(ctx.scope, singleOperand(operand));
  if (!stream) throw new BadNarrowError(`unknown channel ${operandText(operand)}`);
  return streamSql(stream.id);
}

async function byChannels(ctx: TermContext, operand: string): Promise<MessageCondition> {
  if (!ctx.negated) ctx.kinds.note("channel");
  if (operand !== "public" && operand !== "web-public") throw new BadNarrowError(`unknown channels operand ${operand}`);
  return inStreamsSql(await streamIdsWhere(ctx.scope.db, ctx.scope.realmId, operand));
}

function byTopic(ctx: TermContext, operand: string): MessageCondition {
  if (!ctx.negated) ctx.kinds.note("channel");
  const topic = operand === EMPTY_TOPIC_FALLBACK_NAME ? "" : operand;
  return topicSql(topic);
}

async function bySender(ctx: TermContext, operand: Operand): Promise<MessageCondition> {
  const sender = await userByOperand(ctx.scope, singleOperand(operand));
  if (!sender) throw new BadNarrowError(`unknown user ${operandText(operand)}`);
  return senderSql(sender.id);
}

function byId(operand: Operand): MessageCondition {
  const text = operandText(operand);
  if (!/^\d+$/.test(text) || Number(text) > MAX_MESSAGE_ID) throw new BadNarrowError("Invalid message ID");
  return messageIdSql(Number(text));
}

async function byDm(ctx: TermContext, operand: Operand): Promise<MessageCondition> {
  if (!ctx.negated) ctx.kinds.note("direct");
  const refs: (string | number)[] = typeof operand === "string" ? operand.split(",") : Array.isArray(operand) ? operand : [operand];
  if (refs.length === 0) return noMessagesSql();
  const users = await Promise.all(refs.map((ref) => userByOperand(ctx.scope, ref)));
  const ids = users.map((u) => u?.id);
  if (ids.some((id) => id === undefined)) throw new BadNarrowError(`unknown user in ${operandText(operand)}`);
  const members = [ctx.scope.viewer.id, ...ids.filter((id): id is number => id !== undefined)];
  const conversation = await findDirectConversation(ctx.scope.db, ctx.scope.realmId, members);
  return conversation ? recipientSql(conversation.recipientId) : noMessagesSql();
}

/** dm-including (any conversation with the user, 1:1 included) or group-pm-with (groups of three or more). */
async function byDmWith(ctx: TermContext, operand: Operand, minMembers: number): Promise<MessageCondition> {
  if (!ctx.negated) ctx.kinds.note("direct");
  const other = await userByOperand(ctx.scope, singleOperand(operand));
  if (!other) throw new BadNarrowError(`unknown user ${operandText(operand)}`);
  if (other.id === ctx.scope.viewer.id && minMembers <= 2) return directMessageSql();
  const { db, realmId, viewer } = ctx.scope;
  return inRecipientsSql(await sharedDirectRecipientIds(db, realmId, viewer.id, other.id, minMembers));
}

async function byIn(ctx: TermContext, operand: string): Promise<MessageCondition> {
  if (operand === "all") return allMessagesSql();
  if (operand !== "home") throw new BadNarrowError(`unknown 'in' operand ${operand}`);
  return mutingSql(ctx.scope, null);
}

async function termCondition(ctx: TermContext, term: NarrowTerm): Promise<MessageCondition | null> {
  const { operator, operand } = term;
  switch (operator) {
    case "has":
      return byHas(stringOperand(operand));
    case "in":
      return byIn(ctx, stringOperand(operand));
    case "is":
      return byIs(ctx, stringOperand(operand));
    case "channel":
    case "stream":
      return byChannel(ctx, operand);
    case "channels":
    case "streams":
      return byChannels(ctx, stringOperand(operand));
    case "topic":
      return byTopic(ctx, stringOperand(operand));
    case "sender":
      return bySender(ctx, operand);
    case "near":
      return null;
    case "id":
      return byId(operand);
    case "dm":
    case "pm-with":
    case "pm_with":
      return byDm(ctx, operand);
    case "dm-including":
      return byDmWith(ctx, operand, 2);
    case "group-pm-with":
    case "group_pm_with":
      return byDmWith(ctx, operand, 3);
    default:
      throw new BadNarrowError(`unknown operator ${operator}`);
  }
}

/**
 * Zulip's ok_to_include_history: history beyond what the viewer received is shown only for a
 * narrow to a channel whose history they may read (or to all public channels, for non-guests),
 * and never with an `is:` term other than is:resolved (flags exist only on received messages).
 */
async function historyAccess(scope: NarrowScope, terms: readonly NarrowTerm[]): Promise<{ include: boolean; streamIds: number[] }> {
  let include = false;
  const streamIds: number[] = [];
  for (const term of terms) {
    if (term.negated) continue;
    if (CHANNEL_OPERATORS.has(term.operator)) {
      const stream = await streamByOperand(scope, singleOperand(term.operand));
      include = stream !== undefined && (await canAccessStreamHistory(scope, stream));
      if (stream && include) streamIds.push(stream.id);
    } else if (CHANNELS_OPERATORS.has(term.operator) && term.operand === "public" && !isGuest(scope.viewer)) {
      include = true;
      streamIds.push(...(await streamIdsWhere(scope.db, scope.realmId, "public")));
    }
  }
  if (terms.some((t) => t.operator === "is" && t.operand !== "resolved")) include = false;
  return { include, streamIds };
}

/** Builds a narrow's conditions; throws BadNarrowError for unknown operators and operands. */
export async function buildNarrow(scope: NarrowScope, terms: readonly NarrowTerm[]): Promise<BuiltNarrow> {
  const history = await historyAccess(scope, terms);
  const kinds = new KindCheck();
  const conditions: MessageCondition[] = [];
  const searchOperands: string[] = [];
  let channelStreamId: number | null = null;
  for (const term of terms) {
    if (term.operator === "search") {
      searchOperands.push(stringOperand(term.operand));
      continue;
    }
    const cond = await termCondition({ scope, kinds, negated: term.negated }, term);
    if (cond) conditions.push(termSql(cond, term.negated));
    if (channelStreamId === null && CHANNEL_OPERATORS.has(term.operator)) {
      channelStreamId = (await streamByOperand(scope, singleOperand(term.operand)))?.id ?? null;
    }
  }
  return {
    where: allOfSql(conditions),
    search: searchOperands.length === 0 ? null : parseSearch(searchOperands),
    includeHistory: history.include,
    historyStreamIds: history.streamIds,
    channelStreamId,
    visible: visibleSql(scope.viewer.id, history.include ? history.streamIds : []),
    personal: personalHistorySql(scope.viewer.id),
    unmuted: () => mutingSql(scope, channelStreamId),
  };
}
