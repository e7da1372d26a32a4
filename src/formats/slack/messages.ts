/**
 * A Slack export's messages as the shared model's, read twice through the day files. The first
 * pass (`scan`) learns who wrote (authors users.json lacks are added to the roster), who wrote,
 * joined or left in each channel (for channels exported without members), and which threads
 * have replies, and names each thread's topic from its first message (thread-topics.ts).
 * The second (`messages`) yields every message oldest first, a day at a time across all
 * conversations (memory holds one day, never the history), with its text converted
 * (mrkdwn.ts), its reactions, and its files: a file the export holds (`__uploads/<id>/<name>`,
 * or `<conversation>/attachments/<id>-<name>`) is attached; one it only names (Slack's own
 * exports hold links, not files) becomes a link to its Slack permalink. Never the private
 * download URL: it carries an access token. Joins, leaves and other membership notices are left
 * out, as Zulip records none as messages.
 */
import fs from "node:fs";
import path from "node:path";
import type { ForeignFile, ForeignMessage } from "../foreign/organization.ts";
import { dayFiles, readSlackJson } from "./export-files.ts";
import { mrkdwnToMarkdown, mrkdwnToPlain, type MrkdwnNames } from "./mrkdwn.ts";
import type { Roster } from "./people.ts";
import { slackDay, type SlackFile, type SlackMessage } from "./slack-rows.ts";
import { CHANNEL_TOPIC, ThreadTopics } from "./thread-topics.ts";
import type { SlackConversation } from "./conversations.ts";

/** Notices that someone joined or left a channel: they tell who is in it. */
const JOINS = new Set(["channel_join", "group_join"]);
const LEAVES = new Set(["channel_leave", "group_leave"]);

/** Membership and housekeeping notices: not messages in Zulip. */
const NOTICES = new Set(["channel_join", "channel_leave", "group_join", "group_leave", "channel_archive", "channel_unarchive", "group_archive", "group_unarchive", "tombstone"]);

/** What the first pass keeps of a thread: its first message's time and text, and its size. */
type ThreadStart = { ts: number; text: string; isParent: boolean; count: number };

function isNotice(m: SlackMessage): boolean {
  return m.subtype !== undefined && NOTICES.has(m.subtype);
}

/** The messages of the export, read from its day files. */
export class SlackMessages {
  readonly topics = new ThreadTopics();
  /** Per channel, the people who wrote or joined there, and whether they were still in it at the end (no later leave). */
  readonly #present = new Map<string, Map<string, boolean>>();
  #days = new Map<string, string[]>();
  readonly #byFolder: Map<string, SlackConversation>;

  constructor(
    private readonly root: string,
    conversations: readonly SlackConversation[],
    private readonly roster: Roster,
    private readonly names: MrkdwnNames,
  ) {
    this.#byFolder = new Map(conversations.map((c) => [c.folder, c]));
  }

  async *#eachDay(withNotices = false): AsyncGenerator<Array<{ conversation: SlackConversation; message: SlackMessage }>> {
    for (const [day, folders] of this.#days) {
      const out: Array<{ conversation: SlackConversation; message: SlackMessage }> = [];
      for (const folder of folders) {
        const conversation = this.#byFolder.get(folder);
        if (!conversation) continue;
        const messages = (await readSlackJson(path.join(this.root, folder, `${day}.json`), `${folder}/${day}.json`, slackDay)) ?? [];
        for (const message of messages) if (withNotices || !isNotice(message)) out.push({ conversation, message });
      }
      out.sort((a, b) => Number(a.message.ts) - Number(b.message.ts));
      yield out;
    }
  }

  /** Notes that the author of `m` (a message, a join or a leave) is in `channel`, or no longer is. */
  #see(channel: string, m: SlackMessage): void {
    const key = isNotice(m) ? (m.user ?? null) : this.roster.sender(m);
    if (key === null || !this.roster.users.has(key) || (isNotice(m) && !JOINS.has(m.subtype!) && !LEAVES.has(m.subtype!))) return;
    let people = this.#present.get(channel);
    if (!people) this.#present.set(channel, (people = new Map()));
    people.set(key, !LEAVES.has(m.subtype ?? ""));
  }

  /** The people who wrote or joined in `channel` and did not leave it after (call scan first). */
  channelPeople(channel: string): string[] {
    return [...(this.#present.get(channel) ?? [])].filter(([, present]) => present).map(([key]) => key);
  }

  /** First pass: authors, who is in each channel, and the threads with replies named as topics. */
  async scan(): Promise<void> {
    this.#days = await dayFiles(this.root, [...this.#byFolder.keys()]);
    const threads = new Map<string, ThreadStart & { channel: string; threadTs: string }>();
    for await (const day of this.#eachDay(true)) {
      for (const { conversation, message } of day) {
        if (conversation.channelKey !== null) this.#see(conversation.channelKey, message);
        if (isNotice(message)) continue;
        this.roster.sender(message);
        if (conversation.channelKey === null || message.thread_ts === undefined) continue;
        const key = `${conversation.channelKey}\u0000${message.thread_ts}`;
        const ts = Number(message.ts);
        const known = threads.get(key);
        // The thread's parent names it; failing that (not in the export), its earliest message.
        const isParent = message.ts === message.thread_ts;
        const first = !known || isParent || (!known.isParent && known.ts > ts);
        const start = first ? { ts, text: message.text, isParent } : known;
        threads.set(key, { ...start, count: (known?.count ?? 0) + 1, channel: conversation.channelKey, threadTs: message.thread_ts });
      }
    }
    const ordered = [...threads.values()].filter((t) => t.count > 1).sort((a, b) => a.ts - b.ts);
    for (const t of ordered) this.topics.name(t.channel, t.threadTs, mrkdwnToPlain(t.text, this.names));
  }

  #files(conversation: SlackConversation, m: SlackMessage, ownerKey: string): { attached: ForeignFile[]; links: string[] } {
    const attached: ForeignFile[] = [];
    const links: string[] = [];
    for (const f of [...m.files, ...(m.file ? [m.file] : [])]) {
      if (f.mode === "tombstone" || f.mode === "hidden_by_limit") continue;
      const name = f.name ?? f.title ?? f.id ?? "file";
      const local = this.#localFile(conversation, f, name);
      if (local !== null) attached.push({ path: local, name, contentType: f.mimetype ?? null, ownerKey: f.user ?? ownerKey });
      else if (f.permalink !== undefined && !m.text.includes(f.permalink)) links.push(`[${name.replace(/[[\]]/g, "\\$&")}](${f.permalink})`);
    }
    return { attached, links };
  }

  #localFile(conversation: SlackConversation, f: SlackFile, name: string): string | null {
    if (f.id === undefined || /[/\\]|^\.\.?$/.test(name) || /[/\\]/.test(f.id)) return null;
    const candidates = [path.join(this.root, "__uploads", f.id, name), path.join(this.root, conversation.folder, "attachments", `${f.id}-${name}`)];
    return candidates.find((p) => fs.existsSync(p)) ?? null;
  }

  #convert(conversation: SlackConversation, m: SlackMessage): ForeignMessage | null {
    const senderKey = this.roster.sender(m);
    if (senderKey === null) return null;
    const { attached, links } = this.#files(conversation, m, senderKey);
    const markdown = [mrkdwnToMarkdown(m.text, this.names), ...links].filter((s) => s !== "").join("\n");
    if (markdown === "" && attached.length === 0) return null;
    const topic = m.thread_ts === undefined ? undefined : this.topics.get(conversation.channelKey ?? "", m.thread_ts);
    return {
      key: `${conversation.folder}/${m.ts}`,
      senderKey,
      sent: Number(m.ts),
      to: conversation.channelKey === null ? { memberKeys: conversation.memberKeys.includes(senderKey) ? conversation.memberKeys : [...conversation.memberKeys, senderKey] } : { channelKey: conversation.channelKey, topic: topic ?? CHANNEL_TOPIC },
      markdown,
      edited: m.edited?.ts !== undefined && Number.isFinite(Number(m.edited.ts)) ? Number(m.edited.ts) : null,
      reactions: m.reactions.flatMap((r) => r.users.filter((u) => this.roster.users.has(u)).map((userKey) => ({ userKey, emojiName: r.name.replace(/::skin-tone-\d+$/, "") }))),
      files: attached,
    };
  }

  /** Second pass: every message, oldest first (call scan first). */
  async *messages(): AsyncGenerator<ForeignMessage> {
    for await (const day of this.#eachDay()) {
      for (const { conversation, message } of day) {
        const converted = this.#convert(conversation, message);
        if (converted !== null) yield converted;
      }
    }
  }
}
