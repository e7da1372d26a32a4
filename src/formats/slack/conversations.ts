/**
 * A Slack export's conversations and the folders of their day files: public channels
 * (channels.json, folders named by channel), private channels (groups.json, by name), direct
 * conversations (dms.json, by id) and group direct conversations (mpims.json, by name). Channels
 * become the model's channels (the purpose as description, #general-like `is_general` ones
 * joined by everyone); the others are lists of members. A public channel exported without its
 * member list gets the people who wrote or joined there, and #general everyone active
 * (`unlistedMembers`). An export without the optional files simply has none of those conversations.
 */
import path from "node:path";
import type { ForeignChannel, ForeignUser } from "../foreign/organization.ts";
import { readSlackJson } from "./export-files.ts";
import { slackChannels, slackDirects, type SlackChannel } from "./slack-rows.ts";

/** A conversation whose messages are in `folder`: a channel, or direct messages among `memberKeys`. */
export type SlackConversation = { folder: string; channelKey: string | null; memberKeys: string[] };

/** The channels and conversations of the export; `unlisted`: the public channels exported without a member list. */
export type SlackConversations = { channels: ForeignChannel[]; conversations: SlackConversation[]; unlisted: Set<string> };

function channelOf(c: SlackChannel, isPrivate: boolean): ForeignChannel {
  return {
    key: c.id,
    name: c.name.slice(0, 60),
    description: c.purpose?.value || c.topic?.value || "",
    isPrivate,
    isArchived: c.is_archived,
    created: c.created,
    creatorKey: c.creator ?? null,
    memberKeys: [...new Set(c.members ?? [])],
    isDefault: c.is_general,
  };
}

/** Reads the four conversation lists. */
export async function readConversations(root: string): Promise<SlackConversations> {
  const publicOnes = (await readSlackJson(path.join(root, "channels.json"), "channels.json", slackChannels)) ?? [];
  const privateOnes = (await readSlackJson(path.join(root, "groups.json"), "groups.json", slackChannels, true)) ?? [];
  const dms = (await readSlackJson(path.join(root, "dms.json"), "dms.json", slackDirects, true)) ?? [];
  const mpims = (await readSlackJson(path.join(root, "mpims.json"), "mpims.json", slackChannels, true)) ?? [];
  const channels = [...publicOnes.map((c) => channelOf(c, false)), ...privateOnes.map((c) => channelOf(c, true))];
  const conversations: SlackConversation[] = [
    ...publicOnes.map((c) => ({ folder: c.name, channelKey: c.id, memberKeys: [] })),
    ...privateOnes.map((c) => ({ folder: c.name, channelKey: c.id, memberKeys: [] })),
    ...dms.map((d) => ({ folder: d.id, channelKey: null, memberKeys: [...new Set(d.members)] })),
    ...mpims.map((g) => ({ folder: g.name, channelKey: null, memberKeys: [...new Set(g.members ?? [])] })),
  ];
  return { channels, conversations, unlisted: new Set(publicOnes.filter((c) => c.members === undefined).map((c) => c.id)) };
}

/**
 * Subscribers for a public channel exported without its members, so that it is not empty after
 * the import: `present`, the people who wrote or joined there (and did not leave after), and for
 * the default channel (#general, `is_general`) everyone active too, as Slack puts everyone in it.
 */
export function unlistedMembers(channel: ForeignChannel, present: readonly string[], users: readonly ForeignUser[]): string[] {
  const everyone = channel.isDefault ? users.filter((u) => u.isActive && u.bot === undefined).map((u) => u.key) : [];
  return [...new Set([...present, ...everyone])];
}
