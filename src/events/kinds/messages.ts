/**
 * `message` events. The sender publishes one template: the message as HTML with full avatar URL
 * and the real topic, plus what each queue needs to make its own copy (raw Markdown, per-user
 * flags, the sending queue's local id). messageEventForQueue (wired in events/adapters.ts) turns
 * the template into what one queue receives, so flags and formats are exact per queue.
 */
import type { ApiMessage, MessagePresentOptions, UnknownSenderFields } from "../../present/messages.ts";

/** What a client receives. `local_message_id` only on the queue that sent the message. */
type MessageEvent = { type: "message"; message: ApiMessage; flags: readonly string[]; local_message_id?: string };

/** Per-queue data that never reaches a client. Plain JSON, so it crosses the Redis bus. */
type MessageEventVariants = {
  /** The raw Markdown, for queues with apply_markdown=false. */
  raw_content: string;
  /**
   * The receivers grouped by their flags, one set per distinct list (most of a channel's
   * receivers share one), rather than an object keyed by user id: such an object costs every
   * process several times as much to write and read as JSON. Users in no set
   * (all_public_streams queues) get []. Entries that an earlier release put on the Redis bus
   * have the object form (flags by user id as a string key); a process reading them after an
   * upgrade still understands it.
   */
  user_flags: UserFlagSet[] | Record<string, readonly string[]>;
  /** Whether a client_gravatar queue gets avatar_url null (public address, gravatar avatar). */
  gravatar_computable: boolean;
  /** The realm's display name of the empty topic, for clients without empty_topic_name. */
  empty_topic_display_name: string;
  /** The sending client's queue and its local id, if it uses local echo. */
  sender_queue_id: string | null;
  local_id: string | null;
  /**
   * Receivers who may not access the sender (guests outside can_access_all_users_group who share
   * nothing with it) and the placeholder sender fields they see instead. Absent when there are
   * none, as for almost every message.
   */
  sender_hidden_from?: UnknownSenderFields & { user_ids: number[] };
};

/** Receivers that have the same flags on a message. */
export type UserFlagSet = { flags: readonly string[]; user_ids: number[] };

/** Groups each receiver's flags into sets (see MessageEventVariants.user_flags). */
export function userFlagSets(receivers: Iterable<[userId: number, flags: readonly string[]]>): UserFlagSet[] {
  const sets = new Map<string, UserFlagSet>();
  for (const [userId, flags] of receivers) {
    const key = flags.join(" ");
    let set = sets.get(key);
    if (set === undefined) {
      set = { flags, user_ids: [] };
      sets.set(key, set);
    }
    set.user_ids.push(userId);
  }
  return [...sets.values()];
}

/** The published form of a message event. */
export type MessageEventTemplate = { type: "message"; message: ApiMessage; flags: string[]; variants: MessageEventVariants };

/** The options presentMessage must use for the template's `message`. */
export const TEMPLATE_PRESENT_OPTIONS: MessagePresentOptions = { applyMarkdown: true, clientGravatar: false, emptyTopicName: true };

/** Builds the template; `message` must be presented with TEMPLATE_PRESENT_OPTIONS. */
export function messageEventTemplate(message: ApiMessage, variants: MessageEventVariants): MessageEventTemplate {
  return { type: "message", message, flags: [], variants };
}

/** Every message event: the published template, or a queue's copy. */
export type AnyMessageEvent = MessageEventTemplate | MessageEvent;

/**
 * What a template's queues have used so far: its copies, by what tells them apart (see copyKey;
 * local echoes are not kept), the flags of each receiver that has any, by user id (most of a
 * channel's receivers have none, and anyone missing gets []), and the receivers who see the
 * sender as an unknown user.
 */
type TemplateCopies = { copies: Map<string, MessageEvent>; flags: Map<number, readonly string[]>; hiddenFrom: ReadonlySet<number> };
const copiesByTemplate = new WeakMap<MessageEventTemplate, TemplateCopies>();
const NOBODY: ReadonlySet<number> = new Set();

function copiesOf(event: MessageEventTemplate): TemplateCopies {
  let made = copiesByTemplate.get(event);
  if (made === undefined) {
    made = { copies: new Map(), flags: flagsByUser(event.variants.user_flags), hiddenFrom: event.variants.sender_hidden_from ? new Set(event.variants.sender_hidden_from.user_ids) : NOBODY };
    copiesByTemplate.set(event, made);
  }
  return made;
}

/** The receivers that have flags, with them; the others need no entry, as a missing user gets []. */
function flagsByUser(userFlags: MessageEventVariants["user_flags"]): Map<number, readonly string[]> {
  const flags = new Map<number, readonly string[]>();
  if (Array.isArray(userFlags)) {
    for (const set of userFlags) if (set.flags.length > 0) for (const userId of set.user_ids) flags.set(userId, set.flags);
  } else {
    for (const [userId, list] of Object.entries(userFlags)) if (list.length > 0) flags.set(Number(userId), list);
  }
  return flags;
}

/**
 * What one queue sees of a message event template (a queue's copy passes unchanged). Queues
 * that see the same get the same object: events are never changed once made, and one copy per
 * variant, rather than per queue, is what a fan-out to thousands of queues can afford (its
 * JSON text is then built once too: events/pending-events.ts).
 */
export function messageEventForQueue(
  event: AnyMessageEvent,
  options: { apply_markdown: boolean; client_gravatar: boolean; capabilities: { empty_topic_name: boolean } },
  target: { id: string; userId: number },
): MessageEvent {
  if (!("variants" in event)) return event;
  const { variants } = event;
  const made = copiesOf(event);
  const rawContent = !options.apply_markdown;
  const noAvatar = options.client_gravatar && variants.gravatar_computable;
  const topicName = event.message.type === "stream" && event.message.subject === "" && !options.capabilities.empty_topic_name;
  const hiddenSender = made.hiddenFrom.size > 0 && made.hiddenFrom.has(target.userId);
  const flags = made.flags.get(target.userId) ?? [];
  if (variants.sender_queue_id === target.id && variants.local_id !== null) {
    return { type: "message", message: messageCopy(event, rawContent, noAvatar, topicName, hiddenSender), flags, local_message_id: variants.local_id };
  }
  const key = copyKey(rawContent, noAvatar, topicName, hiddenSender, flags);
  let copy = made.copies.get(key);
  if (copy === undefined) {
    copy = { type: "message", message: messageCopy(event, rawContent, noAvatar, topicName, hiddenSender), flags };
    made.copies.set(key, copy);
  }
  return copy;
}

/** What tells two queues' copies apart: the message's formats, the sender shown, and the user's flags (flag names hold no spaces). */
function copyKey(rawContent: boolean, noAvatar: boolean, topicName: boolean, hiddenSender: boolean, flags: readonly string[]): string {
  return `${rawContent ? "r" : "-"}${noAvatar ? "a" : "-"}${topicName ? "t" : "-"}${hiddenSender ? "u" : "-"}${flags.join(" ")}`;
}

/** The template's message as a queue with these formats receives it. */
function messageCopy(event: MessageEventTemplate, rawContent: boolean, noAvatar: boolean, topicName: boolean, hiddenSender: boolean): ApiMessage {
  const { variants } = event;
  const message: ApiMessage = { ...event.message };
  if (rawContent) {
    message.content = variants.raw_content;
    message.content_type = "text/x-markdown";
  }
  if (noAvatar) message.avatar_url = null;
  if (topicName) message.subject = variants.empty_topic_display_name;
  const hidden = variants.sender_hidden_from;
  if (hiddenSender && hidden !== undefined) {
    // As in Zulip, the unknown-user avatar replaces even a gravatar the client could compute.
    message.sender_full_name = hidden.sender_full_name;
    message.sender_email = hidden.sender_email;
    message.avatar_url = hidden.avatar_url;
  }
  return message;
}
