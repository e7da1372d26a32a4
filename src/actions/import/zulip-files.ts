/**
 * The export's files, placed where Parley serves them: uploads under their path_id (so
 * `/user_uploads/<realm_id>/<path>` links in rendered messages keep working) and custom emoji
 * images under the organization (`/user_avatars/<realm_id>/emoji/images/<file>`, as upstream's
 * HTML names them), uploaded avatars where Parley serves them (present/users.ts avatarUrl). Each written file is recorded in the environment, so a failed import takes
 * its files back.
 */
import { copyIntoStorage } from "../../files/storage.ts";
import type { ZulipExport } from "../../formats/zulip/export-reader.ts";
import { realmEmojiRow, type attachmentRow, type Row } from "../../formats/zulip/rows.ts";
import { count, refuse, type ImportEnv } from "./import-env.ts";

/** Copies each upload's file into storage under its path_id. */
export async function copyUploads(env: ImportEnv, source: ZulipExport, attachments: ReadonlyArray<Row<typeof attachmentRow>>): Promise<void> {
  const records = new Map((await source.records("uploads")).map((r) => [r.path, r]));
  let bytes = 0;
  for (const a of attachments) {
    const record = records.get(a.path_id);
    if (!record) refuse(`upload ${a.id} (${a.path_id}) is not listed in uploads/records.json`);
    env.writtenFiles.push(await copyIntoStorage(env.uploadsDir, "files", a.path_id, source.storedFile("uploads", record.path)));
    bytes += a.size;
  }
  count(env, "upload bytes", bytes);
  if (attachments.length > 0) env.log(`uploads: ${attachments.length} files, ${bytes} bytes`);
}

/** Copies each custom emoji's image to where Parley serves the organization's emoji. */
export async function copyEmoji(env: ImportEnv, source: ZulipExport): Promise<void> {
  const emoji = await source.all("realm", "zerver_realmemoji", realmEmojiRow);
  const records = await source.records("emoji");
  for (const e of emoji) {
    const fileName = e.file_name ?? "";
    const record = records.find((r) => r.path.endsWith(`/${fileName}`)) ?? { path: `${env.realmId}/emoji/images/${fileName}` };
    env.writtenFiles.push(await copyIntoStorage(env.uploadsDir, "emoji", `${env.realmId}/${fileName}`, source.storedFile("emoji", record.path)));
  }
}

/** Each user's avatar image in the export (avatars/records.json: the `.png`, not the `.original` or a medium size). */
export async function avatarFiles(source: ZulipExport): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const r of await source.records("avatars")) {
    if (r.user_profile_id !== null && r.path.endsWith(".png") && !r.path.endsWith("-medium.png")) out.set(r.user_profile_id, r.path);
  }
  return out;
}

/** Copies the avatars of the users who uploaded one to `avatars/<realm_id>/<user_id>.png`. */
export async function copyAvatars(env: ImportEnv, source: ZulipExport, files: ReadonlyMap<number, string>): Promise<void> {
  for (const [userId, file] of files) {
    env.writtenFiles.push(await copyIntoStorage(env.uploadsDir, "avatars", `${env.realmId}/${userId}.png`, source.storedFile("avatars", file)));
  }
  count(env, "avatars", files.size);
}
