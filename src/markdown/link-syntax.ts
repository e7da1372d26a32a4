/**
 * Markdown that system messages write to point at a conversation or a message (Zulip's
 * topic_link_util and message_link_url): `#**channel>topic**` and `#**channel>topic@id**`, or a
 * plain link when the names hold characters that would break that syntax; and the fence that
 * quotes someone's text whole (Zulip's get_unused_fence).
 */
import { channelNarrow, encodeHashComponent } from "./urls.ts";

/** How Zulip names the empty topic in links (Message.EMPTY_TOPIC_FALLBACK_NAME). */
const EMPTY_TOPIC_LINK_NAME = "general chat";

/** Characters that break `#**channel>topic**`, and the entities the fallback link shows them as. */
const BREAKS_TOPIC_LINK = /[`>*&[\]]|\$\$/g;
const LINK_ESCAPES: Record<string, string> = { "`": "&#96;", ">": "&gt;", "*": "&#42;", "&": "&amp;", $$: "&#36;&#36;", "[": "&#91;", "]": "&#93;" };

/** A channel as links need it. */
type LinkedChannel = { id: number; name: string };

/** The `#narrow/channel/.../topic/...` path of a topic, and of a message in it when `messageId` is given. */
function topicNarrow(stream: LinkedChannel, topic: string, messageId?: number): string {
  const path = `${channelNarrow(stream.id, stream.name)}/topic/${encodeHashComponent(topic)}`;
  return messageId === undefined ? path : `${path}/near/${messageId}`;
}

/**
 * Zulip's get_stream_topic_link_syntax and get_message_link_syntax: `#**channel>topic**` (with
 * `@id` for a message), or a Markdown link with the same label when the names would break it.
 */
export function topicLinkSyntax(stream: LinkedChannel, topic: string, messageId?: number): string {
  const breaks = (text: string) => text.search(BREAKS_TOPIC_LINK) !== -1;
  const at = messageId === undefined ? "" : `@${messageId}`;
  if (!breaks(stream.name) && !breaks(topic)) return `#**${stream.name}>${topic}${at}**`;
  const escape = (text: string) => text.replace(BREAKS_TOPIC_LINK, (c) => LINK_ESCAPES[c] ?? c);
  const label = `#${escape(stream.name)} > ${escape(topic === "" ? EMPTY_TOPIC_LINK_NAME : topic)}${messageId === undefined ? "" : " @ 💬"}`;
  return `[${label}](${topicNarrow(stream, topic, messageId)})`;
}

/** A message as its link needs it: a channel message's channel and topic, or a direct message's members. */
type LinkedMessage = { id: number; topic: string } & ({ stream: LinkedChannel; memberIds?: undefined } | { stream: null; memberIds: readonly number[] });

/** Zulip's message_link_url: the absolute address of a message in its conversation. */
export function messageLinkUrl(realmUrl: string, message: LinkedMessage): string {
  if (message.stream !== null) return `${realmUrl}/${topicNarrow(message.stream, message.topic, message.id)}`;
  const ids = message.memberIds;
  return `${realmUrl}/#narrow/dm/${ids.join(",")}-${ids.length > 2 ? "group" : "dm"}/near/${message.id}`;
}

/** A code fence longer than any backtick fence opening a line of `text` (Zulip's get_unused_fence), so that quoting `text` in it cannot be closed early. */
export function unusedFence(text: string): string {
  let longest = 0;
  for (const match of text.matchAll(/^ {0,3}(`{3,})/gm)) longest = Math.max(longest, match[1].length);
  return "`".repeat(Math.max(3, longest + 1));
}
