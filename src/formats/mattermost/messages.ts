/**
 * A Mattermost team's messages, streamed in the order they were sent: the posts the first pass
 * indexed (scan.ts) are read again from the export a line at a time, their markup converted
 * (markup.ts), their reactions' emoji named as Zulip names them, their attachments found under
 * `data/`. A reply is placed no earlier than its thread's root post (exports hold replies a
 * clock's skew older than their root); its time stays the export's. Reactions by people who do
 * not come across are left out, as upstream does; an attachment missing from `data/` is named in
 * the message's text and in the notes.
 */
import path from "node:path";
import type { ForeignFile, ForeignMessage, ForeignReaction } from "../foreign/organization.ts";
import { zulipEmojiName } from "./emoji-names.ts";
import { attachmentFile, contentTypeOf, type ExportLocation } from "./export-files.ts";
import { LineReader } from "./jsonl.ts";
import { directPostLine, postLine, type ReplyLine } from "./lines.ts";
import { convertMarkup, type MarkupContext } from "./markup.ts";
import type { PostRef } from "./scan.ts";

/** One message to stream: where it is, where it goes, and its place in time. */
export type PlannedMessage = { ref: PostRef; to: ForeignMessage["to"]; sortMs: number };

/** Lines parsed lately, by line number: a thread's replies come back to their post's line. */
const CACHED_LINES = 64;

export type MessageStreamContext = {
  location: ExportLocation;
  fileName: string;
  markup: MarkupContext;
  /** Usernames of the people who come across. */
  people: ReadonlySet<string>;
  /** Notes for the import's summary, added to as the stream meets them. */
  notes: string[];
};

function reactionsOf(item: ReplyLine, ctx: MessageStreamContext): ForeignReaction[] {
  const seen = new Set<string>();
  const out: ForeignReaction[] = [];
  for (const r of item.reactions) {
    const emojiName = zulipEmojiName(r.emoji_name, ctx.markup.customEmoji);
    const key = `${r.user}\n${emojiName}`;
    if (!ctx.people.has(r.user) || seen.has(key)) continue;
    seen.add(key);
    out.push({ userKey: r.user, emojiName });
  }
  return out;
}

/** The attachments found, and the names of those missing. */
function filesOf(item: ReplyLine, ctx: MessageStreamContext): { files: ForeignFile[]; missing: string[] } {
  const files: ForeignFile[] = [];
  const missing: string[] = [];
  for (const a of item.attachments) {
    const name = path.posix.basename(a.path);
    const file = attachmentFile(ctx.location, a.path);
    if (file === null) missing.push(name);
    else files.push({ path: file, name, contentType: contentTypeOf(name), ownerKey: item.user });
  }
  return { files, missing };
}

/** Streams `planned` (sorted here by time, stable) as messages. */
export async function* streamMessages(planned: PlannedMessage[], ctx: MessageStreamContext): AsyncGenerator<ForeignMessage> {
  const order = planned.map((p, i) => ({ p, i })).sort((a, b) => a.p.sortMs - b.p.sortMs || a.i - b.i);
  const reader = await LineReader.open(ctx.location.file, ctx.fileName);
  const cache = new Map<number, ReplyLine & { replies: ReplyLine[] }>();
  let missingFiles = 0;
  try {
    for (const { p } of order) {
      let post = cache.get(p.ref.lineNo);
      if (post === undefined) {
        const line = await reader.read(p.ref);
        post = "memberKeys" in p.to ? directPostLine.parse(line.direct_post) : postLine.parse(line.post);
        cache.set(p.ref.lineNo, post);
        if (cache.size > CACHED_LINES) cache.delete(cache.keys().next().value as number);
      }
      const item = p.ref.reply < 0 ? post : post.replies[p.ref.reply];
      const { files, missing } = filesOf(item, ctx);
      missingFiles += missing.length;
      const markdown = [convertMarkup(item.message, ctx.markup), ...missing.map((name) => `*(${name}: file not in the export)*`)]
        .filter((part) => part !== "")
        .join("\n");
      yield {
        key: p.ref.reply < 0 ? `${p.ref.lineNo}` : `${p.ref.lineNo}.${p.ref.reply}`,
        senderKey: item.user,
        sent: item.create_at / 1000,
        to: p.to,
        markdown,
        edited: item.edit_at > 0 ? item.edit_at / 1000 : null,
        reactions: reactionsOf(item, ctx),
        files,
      };
    }
  } finally {
    await reader.close();
  }
  if (missingFiles > 0) ctx.notes.push(`${missingFiles} attachment(s) named by posts are not under data/ and were left out (each message says which)`);
}
