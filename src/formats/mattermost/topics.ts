/**
 * Which topic a Mattermost channel post lands in. Mattermost has threads (a root post and its
 * replies) where Zulip has topics: each thread becomes a topic named after its root post's
 * words as plain text, by the rule every foreign import shares (formats/foreign/topic-names.ts:
 * cut to 60 characters at a word, numbered when the channel has the name already), and root
 * posts nobody replied to share one topic per channel, CHANNEL_TOPIC (upstream's converter put
 * everything there; the Slack reader names its own the same way). docs/import.md states the rule.
 */
import { ChannelTopicNames } from "../foreign/topic-names.ts";

/** The topic of a channel's posts that started no thread. */
export const CHANNEL_TOPIC = "imported from Mattermost";

/** The topic of a thread whose root post has no words (a file alone, say). */
const WORDLESS_THREAD = "thread";

/** The words of a (Zulip Markdown) message as plain text on one line: mentions as @Name, link texts, no markup. */
export function plainWords(markdown: string): string {
  return markdown
    .replace(/^ {0,3}(`{3,}|~{3,}).*$/gm, " ")
    .replace(/@\*\*([^*|]+)(\|[^*]*)?\*\*/g, "@$1")
    .replace(/#\*\*([^*]+)\*\*/g, "#$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)/gm, "")
    .replace(/[*`~]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The topic names of one channel's threads; CHANNEL_TOPIC counts as taken. */
export class ChannelTopics {
  readonly #names = new ChannelTopicNames([CHANNEL_TOPIC]);

  /** The topic of a thread whose root post reads `rootMarkdown`. */
  threadTopic(rootMarkdown: string): string {
    return this.#names.claim(plainWords(rootMarkdown), WORDLESS_THREAD);
  }
}
