/**
 * One foreign message as Zulip export rows: its Message row (content with the reader's
 * `@**Name|key**` placeholders resolved to Zulip's `@**Name|id**`, each attached file appended as
 * a `/user_uploads/` link, and rendered_content from the renderer the caller gives: Parley's own),
 * its UserMessage rows (every channel subscriber, or every member of the conversation; all read,
 * as a history arrives read; mentioned where the rendering says so), its reactions (unicode emoji
 * by name, custom ones by their id; other names left out and counted) and its uploads.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import type { ForeignMessage, ForeignOrganization } from "./organization.ts";
import { ImportRefusedError } from "../../errors.ts";
import { REALM_ID, type ZulipIds } from "./zulip-ids.ts";

/** What the renderer reports of one message (Parley's markdown/render.ts fits it). */
export type ForeignRendered = { html: string; mentionedUserIds: number[]; wildcard: { channel: boolean; topic: boolean }; hasLink: boolean; hasImage: boolean; hasAttachment: boolean };

/** What rendering one message may consult. */
export type ForeignRenderContext = {
  realmUrl: string;
  users: Array<{ id: number; full_name: string; email: string; is_active: boolean }>;
  channels: Array<{ id: number; name: string }>;
  realmEmoji: Array<{ name: string; source_url: string; deactivated: boolean }>;
};

/** The caller's renderer and unicode emoji names (the converter is pure of both). */
export type ForeignRendering = {
  realmUrl: string;
  render(markdown: string, ctx: ForeignRenderContext): ForeignRendered;
  /** The unicode code point(s) of an emoji name, as Zulip writes emoji_code ("1f44d"). */
  emojiCode(name: string): string | undefined;
};

/** Zulip's flag bits written here (formats/zulip/flags.ts has them all). */
const READ = 1;
const MENTIONED = 8;
const STREAM_WILDCARD = 16;
const TOPIC_WILDCARD = 32;
const IS_PRIVATE = 2048;

const PLACEHOLDER = /@(_?)\*\*([^*|\n]+)\|([^*\n]+)\*\*/g;

/** Rows of one message. */
export type MessageRows = { message: object; userMessages: object[]; reactions: object[]; attachments: object[]; uploads: Array<{ pathId: string; file: string; ownerId: number; contentType: string | null }> };

/** What the converter knows of the organization while it converts messages. */
export type MessageScope = {
  org: ForeignOrganization;
  ids: ZulipIds;
  rendering: ForeignRendering;
  subscribers: Map<number, number[]>;
  customEmoji: Map<string, { id: number; source_url: string }>;
  next: { message: number; userMessage: number; reaction: number; attachment: number };
  skippedReactions: number;
};

function fileLink(name: string, pathId: string): string {
  return `[${name.replace(/[[\]]/g, "\\$&")}](/user_uploads/${pathId.split("/").map(encodeURIComponent).join("/")})`;
}

function safeFileName(name: string): string {
  return name.replace(/[^\w.-]+/g, "_").replace(/^\.+/, "").slice(-100) || "file";
}

/** The message's content with mentions resolved, and the people it names. */
function resolveMentions(scope: MessageScope, markdown: string): { content: string; users: ForeignRenderContext["users"] } {
  const users = new Map<number, ForeignRenderContext["users"][number]>();
  const content = markdown.replace(PLACEHOLDER, (_, silent: string, name: string, key: string) => {
    const id = scope.ids.users.get(key);
    const user = id === undefined ? undefined : scope.org.users[id - 1];
    if (id === undefined || !user) return `@${name}`;
    users.set(id, { id, full_name: user.fullName, email: user.email, is_active: user.isActive });
    return `@${silent}**${user.fullName}|${id}**`;
  });
  return { content, users: [...users.values()] };
}

/** Converts one message; ids are taken from `scope.next`. */
export function messageRows(scope: MessageScope, m: ForeignMessage): MessageRows {
  const { ids, org } = scope;
  const senderId = ids.users.get(m.senderKey);
  if (senderId === undefined) throw new ImportRefusedError(`message ${m.key} names sender ${m.senderKey}, who is not among the users`);
  const id = scope.next.message++;
  const { content: resolved, users } = resolveMentions(scope, m.markdown);
  const uploads: MessageRows["uploads"] = [];
  const attachments: object[] = [];
  const links: string[] = [];
  for (const f of m.files) {
    const pathId = `${REALM_ID}/${crypto.randomBytes(12).toString("hex")}/${safeFileName(f.name)}`;
    const ownerId = ids.users.get(f.ownerKey) ?? senderId;
    uploads.push({ pathId, file: f.path, ownerId, contentType: f.contentType });
    attachments.push({ id: scope.next.attachment++, file_name: f.name, path_id: pathId, owner: ownerId, realm: REALM_ID, create_time: m.sent, size: fs.statSync(f.path).size, content_type: f.contentType, is_realm_public: false, is_web_public: false, messages: [id], scheduled_messages: [] });
    links.push(fileLink(f.name, pathId));
  }
  const content = [resolved, ...links].filter((s) => s !== "").join("\n");
  const channels = org.channels.filter((c) => content.includes(`#**${c.name}`)).map((c) => ({ id: ids.channels.get(c.key)!, name: c.name }));
  const realmEmoji = content.includes(":") ? [...scope.customEmoji].map(([name, e]) => ({ name, source_url: e.source_url, deactivated: false })) : [];
  const rendered = scope.rendering.render(content, { realmUrl: scope.rendering.realmUrl, users, channels, realmEmoji });
  let recipient: number;
  let receivers: number[];
  let subject = "";
  if ("channelKey" in m.to) {
    const streamId = ids.channels.get(m.to.channelKey);
    if (streamId === undefined) throw new ImportRefusedError(`message ${m.key} names channel ${m.to.channelKey}, which is not among the channels`);
    recipient = ids.channelRecipient.get(streamId)!;
    receivers = scope.subscribers.get(streamId) ?? [];
    subject = m.to.topic;
  } else {
    const members = m.to.memberKeys.flatMap((k) => (ids.users.has(k) ? [ids.users.get(k)!] : []));
    recipient = ids.direct(senderId, members);
    receivers = [...new Set([...members, senderId])];
  }
  const mentioned = new Set(rendered.mentionedUserIds);
  const common = (subject === "" ? IS_PRIVATE : 0) | (rendered.wildcard.channel ? STREAM_WILDCARD : 0) | (rendered.wildcard.topic ? TOPIC_WILDCARD : 0);
  const userMessages = [...new Set([...receivers, senderId])].map((u) => ({ id: scope.next.userMessage++, user_profile: u, message: id, flags_mask: READ | common | (mentioned.has(u) ? MENTIONED : 0) }));
  const seen = new Set<string>();
  const reactions: object[] = [];
  for (const r of m.reactions) {
    const userId = ids.users.get(r.userKey);
    const custom = scope.customEmoji.get(r.emojiName);
    const code = custom ? String(custom.id) : scope.rendering.emojiCode(r.emojiName);
    if (userId === undefined || code === undefined) {
      scope.skippedReactions += 1;
      continue;
    }
    if (seen.has(`${userId}:${r.emojiName}`)) continue;
    seen.add(`${userId}:${r.emojiName}`);
    reactions.push({ id: scope.next.reaction++, message: id, user_profile: userId, emoji_name: r.emojiName, emoji_code: code, reaction_type: custom ? "realm_emoji" : "unicode_emoji" });
  }
  const message = {
    id,
    sender: senderId,
    recipient,
    realm: REALM_ID,
    subject,
    content,
    rendered_content: rendered.html,
    rendered_content_version: 1,
    date_sent: m.sent,
    sending_client: 1,
    last_edit_time: m.edited,
    edit_history: null,
    has_attachment: m.files.length > 0 || rendered.hasAttachment,
    has_image: rendered.hasImage,
    has_link: rendered.hasLink,
    type: 1,
  };
  return { message, userMessages, reactions, attachments, uploads };
}
