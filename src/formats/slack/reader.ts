/**
 * Reads a Slack export (the .zip Slack's "Export data" page gives, or its unpacked folder) into
 * the shared model of formats/foreign/organization.ts: users.json's people, channels.json and
 * groups.json's channels (a public channel without its member list gets the people who wrote or
 * joined there: conversations.ts), dms.json and mpims.json's direct conversations, the day files'
 * messages (messages.ts), and custom emoji when the export holds their images in `emoji/`
 * (`<name>.png|gif|jpg|webp`; Slack's own exports have none). The organization is named after
 * the export's file or folder. integration_logs.json, which lists the apps and integrations the
 * workspace added, becomes a note: they have to be set up again.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { ForeignEmoji, ForeignOrganization } from "../foreign/organization.ts";
import { openSlackExport, readSlackJson } from "./export-files.ts";
import { readConversations, unlistedMembers } from "./conversations.ts";
import { SlackMessages } from "./messages.ts";
import { Roster } from "./people.ts";
import { slackIntegrations, slackUsers } from "./slack-rows.ts";

const EMOJI_FILE = /^([a-z0-9_+-]+)\.(png|gif|jpe?g|webp)$/i;

/** The organization's name from the export's file name ("Acme Slack export Jan 1 2024 - Feb 1 2024.zip" -> "Acme"). */
function organizationName(source: string): string {
  const base = path.basename(source).replace(/\.zip$/i, "");
  return base.replace(/\s+slack export\b.*$/i, "").trim() || "Slack";
}

function stringIdOf(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "slack";
}

async function readEmoji(root: string): Promise<ForeignEmoji[]> {
  const dir = path.join(root, "emoji");
  if (!fs.existsSync(dir)) return [];
  const out: ForeignEmoji[] = [];
  for (const name of (await fsp.readdir(dir)).sort()) {
    const m = EMOJI_FILE.exec(name);
    if (m) out.push({ name: m[1].toLowerCase(), file: path.join(dir, name), authorKey: null });
  }
  return out;
}

async function integrationNotes(root: string): Promise<string[]> {
  const logs = (await readSlackJson(path.join(root, "integration_logs.json"), "integration_logs.json", slackIntegrations, true)) ?? [];
  const names = [...new Set(logs.filter((l) => l.change_type !== "removed").map((l) => l.service_type ?? l.app_type).filter((n): n is string => !!n))].sort();
  return names.length === 0 ? [] : [`Slack integrations and apps to set up again (integration_logs.json): ${names.join(", ")}`];
}

/** Opens `source` (unpacking a .zip into `workDir`) and reads its people and conversations; messages stream on demand. */
export async function readSlackExport(source: string, workDir: string): Promise<ForeignOrganization> {
  const root = await openSlackExport(source, workDir);
  const name = organizationName(source);
  const stringId = stringIdOf(name);
  const { channels, conversations, unlisted } = await readConversations(root);
  const created = Math.min(...channels.map((c) => c.created).filter((t) => t > 0), Math.floor(Date.now() / 1000));
  const roster = new Roster(stringId, created);
  for (const u of (await readSlackJson(path.join(root, "users.json"), "users.json", slackUsers)) ?? []) roster.addSlackUser(u);
  const channelNames = new Map(channels.map((c) => [c.key, c.name]));
  const messages = new SlackMessages(root, conversations, roster, { person: (id) => roster.name(id), channel: (id) => channelNames.get(id) ?? null });
  await messages.scan();
  const users = [...roster.users.values()];
  for (const c of channels) if (unlisted.has(c.key)) c.memberKeys = unlistedMembers(c, messages.channelPeople(c.key), users);
  return {
    source: "Slack",
    name,
    stringId,
    users,
    channels,
    emoji: await readEmoji(root),
    notes: await integrationNotes(root),
    messages: () => messages.messages(),
  };
}
