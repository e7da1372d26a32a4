/**
 * Which topic a Mattermost channel post lands in. Mattermost has threads (a root post and its
 * replies) where Zulip has topics: each thread becomes a topic named after its root post's
 * first words, and root posts nobody replied to share one topic per channel, CHANNEL_TOPIC
 * (upstream's converter put everything there; the Slack reader names its own the same way).
 * docs/import.md states the rule.
 */

/** Zulip's longest topic, in characters (code points). */
export const MAX_TOPIC_LENGTH = 60;

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

/** At most MAX_TOPIC_LENGTH characters of `words`, cut at a word's end and marked with "…" when cut. */
export function truncateTopic(words: string, max = MAX_TOPIC_LENGTH): string {
  const chars = [...words];
  if (chars.length <= max) return words;
  const head = chars.slice(0, max - 1).join("");
  const space = head.lastIndexOf(" ");
  const cut = space >= max / 2 ? head.slice(0, space) : head;
  return `${cut.trimEnd()}…`;
}

/**
 * Topic names of one channel's threads, unique within the channel (compared without case, as
 * Zulip compares topics): a name already taken, CHANNEL_TOPIC included, gets " (2)", " (3)"...
 * within the length limit.
 */
export class ChannelTopics {
  private readonly taken = new Set<string>([CHANNEL_TOPIC.toLowerCase()]);

  /** The topic of a thread whose root post reads `rootMarkdown`. */
  threadTopic(rootMarkdown: string): string {
    const base = truncateTopic(plainWords(rootMarkdown) || WORDLESS_THREAD);
    let name = base;
    for (let n = 2; this.taken.has(name.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      name = `${truncateTopic(base, MAX_TOPIC_LENGTH - suffix.length)}${suffix}`;
    }
    this.taken.add(name.toLowerCase());
    return name;
  }
}
