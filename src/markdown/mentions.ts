// Mentions and channel links: syntax, lookup in the injected data, HTML, and the names a
// message may refer to (so the caller loads exactly those rows).
import { escapeText, tag, type Attrs } from "./escape.ts";
import type { RenderEnv } from "./env.ts";
import { channelNarrow, encodeHashComponent } from "./urls.ts";
import { topicKey, type MentionCandidates, type MentionUser, type RenderContext } from "./types.ts";

const CHANNEL_WILDCARDS = new Set(["all", "everyone", "channel", "stream"]);
const TOPIC_WILDCARD = "topic";
const ID_SYNTAX = /^(.+)?\|(\d+)$/;

function findUser(users: readonly MentionUser[], name: string): MentionUser | null {
  const byId = ID_SYNTAX.exec(name);
  if (byId !== null) {
    const user = users.find((u) => u.id === Number(byId[2])) ?? null;
    // `@**name|id**` must name that user exactly; `@**|id**` needs no name.
    return user !== null && byId[1] !== undefined && user.full_name !== byId[1] ? null : user;
  }
  const lower = name.toLowerCase();
  return users.find((u) => u.full_name.toLowerCase() === lower) ?? null;
}

function mentionText(name: string, silent: boolean): string {
  return escapeText(silent ? name : `@${name}`);
}

/** HTML for `@**name**` (null: unknown, left to other syntax); records flags when `record`. */
export function userMentionHtml(env: RenderEnv, name: string, silent: boolean, record: boolean): string | null {
  const silentClass = silent ? " silent" : "";
  if (CHANNEL_WILDCARDS.has(name)) {
    if (record && !silent) env.wildcard.channel = true;
    const cls = `user-mention channel-wildcard-mention${silentClass}`;
    return tag("span", [["class", cls], ["data-user-id", "*"]], mentionText(name, silent));
  }
  if (name === TOPIC_WILDCARD) {
    if (record && !silent) env.wildcard.topic = true;
    return tag("span", [["class", `topic-mention${silentClass}`]], mentionText(name, silent));
  }
  const user = findUser(env.ctx.users ?? [], name);
  if (user === null) return null;
  if (record && !silent && user.is_active !== false) env.mentionedUserIds.add(user.id);
  const attrs: Attrs = [["class", `user-mention${silentClass}`], ["data-user-id", String(user.id)]];
  return tag("span", attrs, mentionText(user.full_name, silent));
}

/** HTML for `@*group*` (null: unknown or deactivated group). */
export function groupMentionHtml(env: RenderEnv, name: string, silent: boolean, record: boolean): string | null {
  const group = (env.ctx.groups ?? []).find((g) => g.name === name && !g.deactivated);
  if (group === undefined) return null;
  if (record && !silent) {
    env.mentionedGroupIds.add(group.id);
    if (!group.can_mention) env.forbiddenGroups.set(group.id, group.name);
  }
  const attrs: Attrs = [["class", `user-group-mention${silent ? " silent" : ""}`], ["data-user-group-id", String(group.id)]];
  return tag("span", attrs, mentionText(group.name, silent));
}

/** HTML for the body of `#**...**`: a channel, a topic, or a message link (null if unknown). */
export function channelLinkHtml(ctx: RenderContext, body: string): string | null {
  const sep = body.indexOf(">");
  const channelName = sep === -1 ? body : body.slice(0, sep);
  const channel = (ctx.channels ?? []).find((c) => c.name === channelName);
  if (channel === undefined) return null;
  const base = `/${channelNarrow(channel.id, channel.name)}`;
  if (sep === -1) return tag("a", [["class", "stream"], ["data-stream-id", String(channel.id)], ["href", base]], escapeText(`#${channel.name}`));
  let topic = body.slice(sep + 1);
  const message = /@(\d+)$/.exec(topic);
  if (message !== null) topic = topic.slice(0, message.index);
  if (topic === "") return null;
  const topicUrl = `${base}/topic/${encodeHashComponent(topic)}`;
  const label = `#${channel.name} > ${topic}`;
  if (message !== null) {
    return tag("a", [["class", "message-link"], ["href", `${topicUrl}/near/${message[1]}`]], escapeText(`${label} @ 💬`));
  }
  const latest = ctx.topicMessageIds?.get(topicKey(channel.id, topic));
  const href = latest === undefined ? topicUrl : `${topicUrl}/with/${latest}`;
  return tag("a", [["class", "stream-topic"], ["data-stream-id", String(channel.id)], ["href", href]], escapeText(label));
}

const USER_SYNTAX = /(?<![^\s'"({[/<])@_?\*\*([^*]+)\*\*/gu;
const GROUP_SYNTAX = /(?<![^\s'"({[/<])@_?\*([^*]+)\*/gu;
const CHANNEL_SYNTAX = /(?<![^\s'"(,:<])#\*\*([^*]+)\*\*/gu;

/** Names, ids, groups and channels a message's content may mention (a superset). */
export function mentionCandidates(content: string): MentionCandidates {
  const userNames = new Set<string>();
  const userIds = new Set<number>();
  const wildcards = { channel: false, topic: false };
  for (const [whole, name] of content.matchAll(USER_SYNTAX)) {
    const silent = whole.startsWith("@_");
    if (CHANNEL_WILDCARDS.has(name)) wildcards.channel ||= !silent;
    else if (name === TOPIC_WILDCARD) wildcards.topic ||= !silent;
    const byId = ID_SYNTAX.exec(name);
    if (byId !== null) userIds.add(Number(byId[2]));
    else userNames.add(name);
  }
  const groupNames = new Set([...content.matchAll(GROUP_SYNTAX)].map((m) => m[1]));
  const channelNames = new Set<string>();
  const topics: MentionCandidates["topics"] = [];
  for (const [, body] of content.matchAll(CHANNEL_SYNTAX)) {
    const sep = body.indexOf(">");
    channelNames.add(sep === -1 ? body : body.slice(0, sep));
    if (sep !== -1) topics.push({ channelName: body.slice(0, sep), topic: body.slice(sep + 1).replace(/@\d+$/, "") });
  }
  return { userNames: [...userNames], userIds: [...userIds], groupNames: [...groupNames], channelNames: [...channelNames], topics, wildcards };
}
