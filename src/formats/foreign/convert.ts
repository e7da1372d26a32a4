/**
 * Turns a foreign organization (organization.ts, filled by a Slack or Mattermost reader) into a
 * Zulip organization export directory, written with formats/zulip/export-writer.ts, which the
 * Zulip import then reads: one tested path into the store for every source. Ids are assigned in
 * order (zulip-ids.ts); messages stream through in chunks of 1,000 (message-rows.ts renders each
 * with the caller's renderer), and realm.json is written last, when the group conversations the
 * messages met, the reactions and the uploads are known.
 */
import path from "node:path";
import { ZulipExportWriter } from "../zulip/export-writer.ts";
import type { ForeignOrganization } from "./organization.ts";
import { messageRows, type ForeignRendering, type MessageScope } from "./message-rows.ts";
import { channelSubscribers, realmTables } from "./realm-tables.ts";
import { REALM_ID, ZulipIds } from "./zulip-ids.ts";

export type { ForeignRendering } from "./message-rows.ts";

/** Messages per messages-NNNNNN.json, as upstream's exporter writes them. */
const CHUNK = 1000;

/** What the conversion wrote, and what it left aside, for the import's summary. */
export type ConversionReport = { messages: number; notes: string[] };

async function writeEmoji(writer: ZulipExportWriter, org: ForeignOrganization, ids: ZulipIds): Promise<{ rows: object[]; byName: MessageScope["customEmoji"] }> {
  const rows: object[] = [];
  const byName: MessageScope["customEmoji"] = new Map();
  for (const e of org.emoji) {
    if (byName.has(e.name)) continue;
    const id = rows.length + 1;
    const fileName = `${id}${path.extname(e.file).toLowerCase() || ".png"}`;
    const author = e.authorKey === null ? null : (ids.users.get(e.authorKey) ?? null);
    await writer.addFile("emoji", `${REALM_ID}/emoji/images/${fileName}`, e.file, { realm_id: REALM_ID, file_name: fileName, user_profile_id: author });
    rows.push({ id, realm: REALM_ID, name: e.name, file_name: fileName, author, deactivated: false, is_animated: fileName.endsWith(".gif") });
    byName.set(e.name, { id, source_url: `/user_avatars/${REALM_ID}/emoji/images/${fileName}` });
  }
  return { rows, byName };
}

/** Writes the export of `org` into `dir` (new or empty). */
export async function convertForeignOrganization(org: ForeignOrganization, dir: string, rendering: ForeignRendering): Promise<ConversionReport> {
  const writer = await ZulipExportWriter.create(dir);
  const ids = new ZulipIds(org);
  const subscribers = channelSubscribers(org, ids);
  const emoji = await writeEmoji(writer, org, ids);
  const scope: MessageScope = { org, ids, rendering, subscribers, customEmoji: emoji.byName, next: { message: 1, userMessage: 1, reaction: 1, attachment: 1 }, skippedReactions: 0 };
  const reactions: object[] = [];
  const attachments: object[] = [];
  let messages: object[] = [];
  let userMessages: object[] = [];
  for await (const m of org.messages()) {
    const rows = messageRows(scope, m);
    messages.push(rows.message);
    userMessages.push(...rows.userMessages);
    reactions.push(...rows.reactions);
    attachments.push(...rows.attachments);
    for (const u of rows.uploads) await writer.addFile("uploads", u.pathId, u.file, { realm_id: REALM_ID, user_profile_id: u.ownerId, content_type: u.contentType });
    if (messages.length >= CHUNK) {
      await writer.writeMessages(messages, userMessages);
      messages = [];
      userMessages = [];
    }
  }
  if (messages.length > 0) await writer.writeMessages(messages, userMessages);
  await writer.writeAttachments(attachments);
  await writer.writeRealm(realmTables(org, ids, subscribers, emoji.rows, reactions));
  await writer.finish();
  const notes = [...(org.notes ?? [])];
  if (scope.skippedReactions > 0) notes.push(`${scope.skippedReactions} reactions with emoji this server does not know were left out`);
  return { messages: scope.next.message - 1, notes };
}
