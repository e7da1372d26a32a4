/**
 * Uploaded avatars' images (avatar_source "U"), public as Zulip serves /user_avatars/: the image
 * at `avatars/<realm_id>/<user_id>.png`, for the URL present/users.ts avatarUrl gives. No medium
 * size is kept: `-medium` serves the same image.
 */
import type { Config } from "../../config.ts";
import { readStoredFile } from "../../files/storage.ts";

const AVATAR_NAME = /^(\d+)(-medium)?\.png$/;

/** The avatar image a `/user_avatars/<realm_id>/<file>` URL names, or null. */
export async function readAvatarImage(config: Config, realmId: number, fileName: string): Promise<Buffer | null> {
  const m = AVATAR_NAME.exec(fileName);
  return m === null ? null : readStoredFile(config.uploadsDir, "avatars", `${realmId}/${m[1]}.png`);
}
