/**
 * Where a Slack channel's messages go in Zulip's channel/topic model. Each thread (a message
 * with replies: the messages sharing its `thread_ts`) becomes a topic of its own, named from the
 * thread's first message: its first line of plain text (mentions as names, links as their
 * label, no markup), whitespace collapsed, cut at a word to Zulip's 60 characters with "…"; a
 * thread starting without text (a file alone) is named "thread of <date>". Two threads of one
 * channel with the same name get " (2)", " (3)"... Everything said outside threads goes to one
 * topic per channel, "imported from Slack", in order, as upstream's Slack import does; a thread's
 * replies "also sent to the channel" stay in their thread.
 */

/** Zulip's longest topic name. */
export const MAX_TOPIC = 60;

/** The topic of a channel's messages outside threads. */
export const CHANNEL_TOPIC = "imported from Slack";

/** A topic name of at most MAX_TOPIC characters from a line of text (cut at a word where one is near). */
export function topicFromText(text: string, fallback: string): string {
  const line = text.split("\n").map((l) => l.replace(/\s+/g, " ").trim()).find((l) => l !== "" && l !== ">") ?? "";
  const clean = line.replace(/^>\s*/, "");
  if (clean === "") return fallback;
  const chars = [...clean];
  if (chars.length <= MAX_TOPIC) return clean;
  const cut = chars.slice(0, MAX_TOPIC - 1).join("");
  const space = cut.lastIndexOf(" ");
  return `${space > MAX_TOPIC / 2 ? cut.slice(0, space) : cut}…`;
}

/** The topics of every channel's threads, named as the threads are met (first message first). */
export class ThreadTopics {
  /** `${channel}\u0000${thread_ts}` -> topic. */
  readonly #topics = new Map<string, string>();
  readonly #used = new Map<string, Set<string>>();

  /** Names the thread `threadTs` of `channel` from the plain text of its first message. */
  name(channel: string, threadTs: string, plainText: string): string {
    const key = `${channel}\u0000${threadTs}`;
    const known = this.#topics.get(key);
    if (known !== undefined) return known;
    const date = new Date(Number(threadTs) * 1000).toISOString().slice(0, 16).replace("T", " ");
    const base = topicFromText(plainText, `thread of ${date}`);
    let used = this.#used.get(channel);
    if (!used) this.#used.set(channel, (used = new Set([CHANNEL_TOPIC.toLowerCase()])));
    let topic = base;
    for (let n = 2; used.has(topic.toLowerCase()); n += 1) {
      const suffix = ` (${n})`;
      topic = [...base].slice(0, MAX_TOPIC - suffix.length).join("").trimEnd() + suffix;
    }
    used.add(topic.toLowerCase());
    this.#topics.set(key, topic);
    return topic;
  }

  /** The topic of a thread already named, or undefined. */
  get(channel: string, threadTs: string): string | undefined {
    return this.#topics.get(`${channel}\u0000${threadTs}`);
  }
}
