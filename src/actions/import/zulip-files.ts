/**
 * The export's files, placed where Parley serves them: uploads under their path_id (so
 * `/user_uploads/<realm_id>/<path>` links in rendered messages keep working) and custom emoji
 * images under the organization (`/user_avatars/<realm_id>/emoji/images/<file>`, as upstream's
 * HTML names them). Each written file is recorded in the environment, so a failed import takes
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
