/**
 * Where a Slack channel's messages go in Zulip's channel/topic model. Each thread (a message
 * with replies: the messages sharing its `thread_ts`) becomes a topic of its own, named from the
 * thread's first message: its first line of plain text (mentions as names, links as their
 * label, no markup), named by the rule every foreign import shares (formats/foreign/
 * topic-names.ts: cut at a word to 60 characters with "…", numbered " (2)", " (3)"... when the
 * channel has the name already); a thread starting without text (a file alone) is named
 * "thread of <date>". Everything said outside threads goes to one topic per channel, "imported
 * from Slack", in order, as upstream's Slack import does; a thread's replies "also sent to the
 * channel" stay in their thread.
 */
import { ChannelTopicNames } from "../foreign/topic-names.ts";

/** The topic of a channel's messages outside threads. */
export const CHANNEL_TOPIC = "imported from Slack";

/** The first line of `text` with words in it, without a quote's ">", or "". */
export function firstLine(text: string): string {
  const line = text.split("\n").map((l) => l.replace(/\s+/g, " ").trim()).find((l) => l !== "" && l !== ">") ?? "";
  return line.replace(/^>\s*/, "");
}

/** The topics of every channel's threads, named as the threads are met (first message first). */
export class ThreadTopics {
  /** `${channel}\u0000${thread_ts}` -> topic. */
  readonly #topics = new Map<string, string>();
  readonly #names = new Map<string, ChannelTopicNames>();

  /** Names the thread `threadTs` of `channel` from the plain text of its first message. */
  name(channel: string, threadTs: string, plainText: string): string {
    const key = `${channel}\u0000${threadTs}`;
    const known = this.#topics.get(key);
    if (known !== undefined) return known;
    const date = new Date(Number(threadTs) * 1000).toISOString().slice(0, 16).replace("T", " ");
    let names = this.#names.get(channel);
    if (!names) this.#names.set(channel, (names = new ChannelTopicNames([CHANNEL_TOPIC])));
    const topic = names.claim(firstLine(plainText), `thread of ${date}`);
    this.#topics.set(key, topic);
    return topic;
  }

  /** The topic of a thread already named, or undefined. */
  get(channel: string, threadTs: string): string | undefined {
    return this.#topics.get(`${channel}\u0000${threadTs}`);
  }
}
