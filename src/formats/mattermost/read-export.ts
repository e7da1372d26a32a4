/**
 * A Mattermost bulk export as one team's ForeignOrganization (formats/foreign/organization.ts).
 * An export can hold several teams, each its own organization here: `team` picks one, and is
 * needed (the refusal lists the names) when there are several. Direct conversations belong to no
 * team: with one team they all come across; with several, those whose people are all members of
 * the chosen team. Posts in a channel the team does not have are left out and counted in the
 * notes (upstream's fixture has one). A post's sender, or a conversation's member, that the
 * export does not list refuses the export.
 */
import path from "node:path";
import { ImportRefusedError } from "../../errors.ts";
import type { ForeignEmoji, ForeignMessage, ForeignOrganization } from "../foreign/organization.ts";
import { emojiFile, locateExport } from "./export-files.ts";
import { streamMessages, type PlannedMessage } from "./messages.ts";
import { inTeam, teamChannels, teamPeople } from "./people.ts";
import { scanExport, type ExportScan, type PostRef } from "./scan.ts";
import { convertMarkup, type MarkupContext } from "./markup.ts";
import { ChannelTopics, CHANNEL_TOPIC } from "./topics.ts";
import type { TeamLine } from "./lines.ts";

export type MattermostImport = {
  organization: ForeignOrganization;
  /** What was left aside, for the import's summary; streaming the messages may add to it. */
  notes: string[];
};

function pickTeam(teams: readonly TeamLine[], wanted: string | undefined): TeamLine {
  const names = teams.map((t) => t.name).join(", ");
  if (teams.length === 0) throw new ImportRefusedError("the export holds no team");
  if (wanted === undefined) {
    if (teams.length === 1) return teams[0];
    throw new ImportRefusedError(`the export holds ${teams.length} teams (${names}): choose one with --team NAME`);
  }
  const team = teams.find((t) => t.name === wanted);
  if (team === undefined) throw new ImportRefusedError(`the export has no team "${wanted}"; its teams: ${names}`);
  return team;
}

function checkKnown(scan: ExportScan, names: Iterable<string>, what: string): void {
  for (const name of names) if (!scan.users.has(name)) throw new ImportRefusedError(`${what} "${name}" is not among the export's users`);
}

/** Reads the export at `source` (its .jsonl file or its directory) for one team. */
export async function readMattermostExport(source: string, options: { team?: string } = {}): Promise<MattermostImport> {
  const location = locateExport(source);
  const fileName = path.basename(location.file);
  const scan = await scanExport(location.file, fileName);
  const team = pickTeam(scan.teams, options.team);
  const notes: string[] = [];

  const teamChannelNames = new Set(scan.channels.filter((c) => c.team === team.name).map((c) => c.name));
  const channelPosts = scan.channelPosts.filter((p) => p.team === team.name && teamChannelNames.has(p.channel));
  const strays = scan.channelPosts.filter((p) => p.team === team.name).length - channelPosts.length;
  if (strays > 0) notes.push(`${strays} post(s) of team ${team.name} in a channel the team does not have were left out`);
  const memberOf = (name: string) => scan.users.get(name) !== undefined && inTeam(scan.users.get(name)!, team.name);
  const directPosts = scan.teams.length === 1 ? scan.directPosts : scan.directPosts.filter((p) => p.members.every(memberOf));
  if (directPosts.length < scan.directPosts.length) notes.push(`${scan.directPosts.length - directPosts.length} direct message(s) with people outside team ${team.name} were left out`);

  const allRefs = (posts: Array<{ root: PostRef; replies: PostRef[] }>) => posts.flatMap((p) => [p.root, ...p.replies]);
  const refs = [...allRefs(channelPosts), ...allRefs(directPosts)];
  checkKnown(scan, refs.map((r) => r.sender), "the sender");
  checkKnown(scan, directPosts.flatMap((p) => p.members), "the conversation member");
  const others = new Set([...refs.map((r) => r.sender), ...directPosts.flatMap((p) => p.members)]);
  const firstMs = refs.reduce((min, r) => Math.min(min, r.sentMs), Date.now());

  const people = teamPeople(scan.users, team.name, others, Math.floor(firstMs / 1000));
  const firstPostMs = new Map<string, number>();
  for (const p of channelPosts) firstPostMs.set(p.channel, Math.min(firstPostMs.get(p.channel) ?? Infinity, p.root.sentMs));
  const channels = teamChannels(scan.channels, scan.users, team.name, (name) => Math.floor((firstPostMs.get(name) ?? firstMs) / 1000));

  const emoji: ForeignEmoji[] = [];
  for (const e of scan.emoji) {
    const file = emojiFile(location, e.image);
    if (file === null) notes.push(`custom emoji :${e.name}: left out: its image ${e.image} is not in the export`);
    else emoji.push({ name: e.name, file, authorKey: null });
  }
  const markup: MarkupContext = {
    people: new Map(people.map((p) => [p.key.toLowerCase(), p.fullName])),
    channels: new Map(channels.map((c) => [c.key, c.name])),
    customEmoji: new Set(emoji.map((e) => e.name)),
  };

  const planned: PlannedMessage[] = [];
  const topics = new Map<string, ChannelTopics>();
  for (const post of channelPosts) {
    let topic = CHANNEL_TOPIC;
    if (post.replies.length > 0) {
      const channelTopics = topics.get(post.channel) ?? new ChannelTopics();
      topics.set(post.channel, channelTopics);
      topic = channelTopics.threadTopic(convertMarkup(post.rootText, markup));
    }
    const to: ForeignMessage["to"] = { channelKey: post.channel, topic };
    planned.push({ ref: post.root, to, sortMs: post.root.sentMs }, ...post.replies.map((r) => ({ ref: r, to, sortMs: Math.max(r.sentMs, post.root.sentMs) })));
  }
  for (const post of directPosts) {
    const to = { memberKeys: [...new Set(post.members)] };
    planned.push({ ref: post.root, to, sortMs: post.root.sentMs }, ...post.replies.map((r) => ({ ref: r, to, sortMs: Math.max(r.sentMs, post.root.sentMs) })));
  }
  if (scan.systemPosts > 0) notes.push(`${scan.systemPosts} notice(s) of Mattermost's own (joins, leaves, header changes) were left out`);
  for (const [type, n] of scan.ignoredTypes) notes.push(`${n} "${type}" line(s) of the export are not read by this importer`);

  const keys = new Set(people.map((p) => p.key));
  const organization: ForeignOrganization = {
    source: "Mattermost",
    name: team.display_name.trim() || team.name,
    stringId: team.name,
    users: people,
    channels,
    emoji,
    notes,
    messages: () => streamMessages(planned, { location, fileName, markup, people: keys, notes }),
  };
  return { organization, notes };
}
