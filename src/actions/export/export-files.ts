/**
 * An export's stored files and their rows: uploads (attachment.json, each with the exported
 * messages that link it, and its file under uploads/<path_id>), uploaded avatars
 * (avatars/<realm_id>/<user_id>.png) and custom emoji images
 * (emoji/<realm_id>/emoji/images/<file name>, where upstream keeps them), each listed in its
 * folder's records.json. An upload goes in when an exported message links it, or its owner's
 * private data does; a file missing from storage is left out and named in the log.
 */
import fs from "node:fs";
import { storedFilePath } from "../../files/storage.ts";
import { attachmentMessages, attachmentsAfter, realmRows } from "../../store/export/organization-rows.ts";
import { messagesByIds } from "../../store/export/message-chunks.ts";
import type { UserRow } from "../../store/schema/database.ts";
import type { ZulipExportWriter } from "../../formats/zulip/export-writer.ts";
import type { ExportEnv } from "./export-env.ts";
import type { ExportScope } from "./export-scope.ts";

/** Uploads read, with their links, per round: memory follows this, not the organization's uploads. */
const ROUND = 1000;

function existing(file: string | null): file is string {
  return file !== null && fs.existsSync(file);
}

/** Per upload of `attachmentIds`, the exported messages that link it. */
async function exportedLinks(env: ExportEnv, scope: ExportScope, attachmentIds: readonly number[]): Promise<Map<number, number[]>> {
  const links = await attachmentMessages(env.db, attachmentIds);
  const kept = new Set<number>();
  for (const m of await messagesByIds(env.db, env.realmId, [...new Set(links.map((l) => l.message_id))])) if (scope.includes(m, scope.receivers(m))) kept.add(m.id);
  const out = new Map<number, number[]>();
  for (const l of links) if (kept.has(l.message_id)) out.set(l.attachment_id, [...(out.get(l.attachment_id) ?? []), l.message_id]);
  return out;
}

/** Copies the uploads and writes attachment.json, a round of uploads at a time; returns the bytes copied. */
export async function writeUploads(env: ExportEnv, scope: ExportScope, writer: ZulipExportWriter, users: ReadonlyMap<number, UserRow>): Promise<number> {
  let bytes = 0;
  async function* rows(): AsyncGenerator<object> {
    for (let after = 0; ; ) {
      const page = await attachmentsAfter(env.db, env.realmId, after, ROUND);
      if (page.length === 0) return;
      after = page[page.length - 1].id;
      const links = await exportedLinks(env, scope, page.map((a) => a.id));
      for (const a of page) {
        const messages = links.get(a.id) ?? [];
        if (messages.length === 0 && !scope.isPrivateOf(a.owner_id)) continue;
        const file = storedFilePath(env.uploadsDir, "files", a.path_id);
        if (!existing(file)) {
          env.log(`upload ${a.id} (${a.path_id}) is missing from storage: left out`);
          continue;
        }
        await writer.addFile("uploads", a.path_id, file, { realm_id: env.realmId, user_profile_id: a.owner_id, user_profile_email: users.get(a.owner_id)?.delivery_email ?? "", last_modified: a.create_time, content_type: a.content_type });
        bytes += a.size;
        yield { id: a.id, realm: env.realmId, owner: a.owner_id, path_id: a.path_id, file_name: a.file_name, size: a.size, content_type: a.content_type, create_time: a.create_time, messages, scheduled_messages: [] };
      }
    }
  }
  await writer.writeAttachments(rows());
  return bytes;
}

/** Copies uploaded avatars and custom emoji images. */
export async function writeImages(env: ExportEnv, writer: ZulipExportWriter, users: readonly UserRow[]): Promise<void> {
  for (const u of users) {
    if (u.avatar_source !== "U") continue;
    const relative = `${env.realmId}/${u.id}.png`;
    const file = storedFilePath(env.uploadsDir, "avatars", relative);
    if (existing(file)) await writer.addFile("avatars", relative, file, { realm_id: env.realmId, user_profile_id: u.id, user_profile_email: u.delivery_email, avatar_version: u.avatar_version });
    else env.log(`the avatar of user ${u.id} is missing from storage: left out`);
  }
  for (const e of await realmRows(env.db, "realm_emoji", env.realmId)) {
    const file = storedFilePath(env.uploadsDir, "emoji", `${env.realmId}/${e.file_name}`);
    const relative = `${env.realmId}/emoji/images/${e.file_name}`;
    if (existing(file)) await writer.addFile("emoji", relative, file, { realm_id: env.realmId, author: e.author_id, file_name: e.file_name, name: e.name, deactivated: e.deactivated === 1 });
    else env.log(`the image of custom emoji ${e.name} is missing from storage: left out`);
  }
}
