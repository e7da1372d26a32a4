/**
 * The one rule by which the readers of other products (formats/slack/, formats/mattermost/) name
 * the topics their threads become: the thread's words, whitespace collapsed, cut at a word to
 * Zulip's 60-character topic limit and marked "…" when cut (a fallback when there are no
 * words); and, within one channel, a name already taken (the channel's own topic for messages
 * outside threads included) gets " (2)", " (3)"... still within the limit. Names are compared
 * without case, as Zulip compares topics: "Deploy" and "deploy" would otherwise be one topic.
 */

/** Zulip's longest topic, in characters (code points). */
export const MAX_TOPIC_LENGTH = 60;

/** `words` with whitespace collapsed, and at most `max` characters: cut at a word's end (when one ends in the second half) and marked with "…". */
export function truncateTopic(words: string, max = MAX_TOPIC_LENGTH): string {
  const line = words.replace(/\s+/g, " ").trim();
  const chars = [...line];
  if (chars.length <= max) return line;
  // A space right after the last character that fits ends a word too.
  const window = chars.slice(0, max).join("");
  const space = window.lastIndexOf(" ");
  const cut = space >= max / 2 ? window.slice(0, space) : chars.slice(0, max - 1).join("");
  return `${cut.trimEnd()}…`;
}

/** The topic names of one channel's threads, each unique in the channel (without case). */
export class ChannelTopicNames {
  readonly #taken = new Set<string>();

  /** `reserved`: names already used in the channel (its topic for messages outside threads). */
  constructor(reserved: readonly string[] = []) {
    for (const name of reserved) this.#taken.add(name.toLowerCase());
  }

  /** A new topic named from `words` (or `fallback` when they are blank), numbered when the name is taken. */
  claim(words: string, fallback: string): string {
    const base = truncateTopic(words) || truncateTopic(fallback);
    let name = base;
    for (let n = 2; this.#taken.has(name.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      name = `${truncateTopic(base, MAX_TOPIC_LENGTH - suffix.length)}${suffix}`;
    }
    this.#taken.add(name.toLowerCase());
    return name;
  }
}
