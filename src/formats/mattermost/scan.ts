/**
 * The first pass over a Mattermost bulk export: every line checked against its schema
 * (lines.ts), teams, channels, people and custom emoji kept, and each post and reply indexed by
 * where its line is and when it was sent, so that the messages can be streamed later in time
 * order without holding their text. The export must start with its version line (version 1).
 */
import { ImportRefusedError } from "../../errors.ts";
import { parseRow } from "../zulip/export-reader.ts";
import { jsonLines, type JsonLine } from "./jsonl.ts";
import {
  channelLine, directChannelLine, directPostLine, emojiLine, postLine, teamLine, userLine, versionLine,
  type ChannelLine, type EmojiLine, type TeamLine, type UserLine,
} from "./lines.ts";

/** A post or one of its replies: its line, its place among the line's replies (-1: the post itself), its sender and time (ms). */
export type PostRef = Pick<JsonLine, "lineNo" | "offset" | "length"> & { reply: number; sender: string; sentMs: number; reactors: string[] };

/** A channel post's root and replies, with the root's first characters (to name its thread). */
export type ChannelPostRefs = { team: string; channel: string; root: PostRef; replies: PostRef[]; rootText: string };
export type DirectPostRefs = { members: string[]; root: PostRef; replies: PostRef[] };

export type ExportScan = {
  teams: TeamLine[];
  channels: ChannelLine[];
  users: Map<string, UserLine>;
  emoji: EmojiLine[];
  directChannels: string[][];
  channelPosts: ChannelPostRefs[];
  directPosts: DirectPostRefs[];
  /** Line types this reader does not read, with how many lines of each. */
  ignoredTypes: Map<string, number>;
  /** Mattermost's own notices (posts of a `system_...` type: joins, leaves...), left out. */
  systemPosts: number;
};

const SUPPORTED_VERSION = 1;
/** Enough of a root post's text for a topic name. */
const ROOT_TEXT_CHARS = 400;

type PostFields = { user: string; create_at: number; reactions: Array<{ user: string }>; replies: Array<{ user: string; create_at: number; reactions: Array<{ user: string }> }> };

function refs(line: JsonLine, post: PostFields): { root: PostRef; replies: PostRef[] } {
  const at = { lineNo: line.lineNo, offset: line.offset, length: line.length };
  const root = { ...at, reply: -1, sender: post.user, sentMs: post.create_at, reactors: post.reactions.map((r) => r.user) };
  const replies = post.replies.map((r, i) => ({ ...at, reply: i, sender: r.user, sentMs: r.create_at, reactors: r.reactions.map((x) => x.user) }));
  return { root, replies };
}

/** Reads the whole export once; `name` labels the file in messages. */
export async function scanExport(file: string, name: string): Promise<ExportScan> {
  const scan: ExportScan = { teams: [], channels: [], users: new Map(), emoji: [], directChannels: [], channelPosts: [], directPosts: [], ignoredTypes: new Map(), systemPosts: 0 };
  let sawVersion = false;
  for await (const line of jsonLines(file, name)) {
    const where = `${name} line ${line.lineNo}`;
    const type = line.value.type;
    if (typeof type !== "string") throw new ImportRefusedError(`${where} has no "type": this is not a Mattermost bulk export`);
    const body = line.value[type];
    if (!sawVersion) {
      if (type !== "version") throw new ImportRefusedError(`${where} is a "${type}" line; a Mattermost bulk export starts with its "version" line`);
      const version = parseRow(versionLine, line.value, where).version;
      if (version !== SUPPORTED_VERSION) throw new ImportRefusedError(`the export is of version ${version}; this importer reads version ${SUPPORTED_VERSION}`);
      sawVersion = true;
      continue;
    }
    switch (type) {
      case "team": scan.teams.push(parseRow(teamLine, body, where)); break;
      case "channel": scan.channels.push(parseRow(channelLine, body, where)); break;
      case "user": {
        const user = parseRow(userLine, body, where);
        scan.users.set(user.username, user);
        break;
      }
      case "emoji": scan.emoji.push(parseRow(emojiLine, body, where)); break;
      case "direct_channel": scan.directChannels.push(parseRow(directChannelLine, body, where).members); break;
      case "post": {
        const post = parseRow(postLine, body, where);
        if (post.type.startsWith("system_")) {
          scan.systemPosts++;
          break;
        }
        scan.channelPosts.push({ team: post.team, channel: post.channel, ...refs(line, post), rootText: post.replies.length > 0 ? post.message.slice(0, ROOT_TEXT_CHARS) : "" });
        break;
      }
      case "direct_post": {
        const post = parseRow(directPostLine, body, where);
        scan.directPosts.push({ members: post.channel_members, ...refs(line, post) });
        break;
      }
      default: scan.ignoredTypes.set(type, (scan.ignoredTypes.get(type) ?? 0) + 1);
    }
  }
  if (!sawVersion) throw new ImportRefusedError(`${name} is empty: this is not a Mattermost bulk export`);
  return scan;
}
