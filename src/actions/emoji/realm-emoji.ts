/** Custom emoji: list, upload (POST /realm/emoji/{name}) and deactivate (DELETE). */
import { realmEmojiEvent } from "../../events/kinds/realm-emoji.ts";
import type { Config } from "../../config.ts";
import { emojiContentType, imageExtension } from "../../files/images.ts";
import { readStoredFile, removeStoredFiles, writeStoredFile } from "../../files/storage.ts";
import type { UploadedFile } from "../../files/uploaded-file.ts";
import { JsonableError } from "../../errors.ts";
import { unicodeEmojiCode } from "../../markdown/emoji-data.ts";
import { hasRealmPermission, isGuest, isRealmAdmin } from "../../permissions/check.ts";
import type { ApiRealmEmoji } from "../../present/attachments.ts";
import type { Db } from "../../store/schema/types.ts";
import { deactivateRealmEmoji, getActiveRealmEmoji, insertRealmEmoji, setRealmEmojiFileName } from "../../store/realm/realm-emoji.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { realmEmojiDict } from "../../register/files.ts";
import { withTransaction, type ActionCtx, type AuthedCtx, type Emit } from "../context.ts";
import { checkFileSize } from "../attachments/uploads.ts";

/** GET /realm/emoji: the realm's custom emoji keyed by id (deactivated ones included). */
export async function listEmoji(ctx: ActionCtx): Promise<Record<string, ApiRealmEmoji>> {
  return realmEmojiDict(ctx.db, ctx.realm.id);
}

/** Active custom emoji in the renderer's form (for message rendering contexts). */
export async function renderableRealmEmoji(db: Db, realmId: number): Promise<Array<{ name: string; source_url: string; deactivated: boolean }>> {
  return Object.values(await realmEmojiDict(db, realmId)).filter((e) => !e.deactivated);
}

/** Zulip's check_valid_emoji_name. */
function checkEmojiName(name: string): void {
  if (name === "") throw new JsonableError("Emoji name is missing");
  if (/^[0-9a-z_-]+$/.test(name)) {
    if (/[_-]$/.test(name)) throw new JsonableError("Emoji names must end with either a letter or digit.");
    return;
  }
  throw new JsonableError("Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.");
}

async function emitRealmEmoji(db: Db, ctx: AuthedCtx, emit: Emit): Promise<void> {
  emit(realmEmojiEvent(await realmEmojiDict(db, ctx.realm.id)), await activeUserIds(db, ctx.realm.id));
}

/** Adds a custom emoji from the one uploaded image; checks run in Zulip's order. */
export async function addRealmEmoji(ctx: AuthedCtx, rawName: string, files: readonly UploadedFile[]): Promise<void> {
  if (isGuest(ctx.actor)) throw new JsonableError("Not allowed for guest users");
  const name = rawName.trim().replaceAll(" ", "_");
  checkEmojiName(name);
  if (!(await hasRealmPermission(ctx.db, ctx.realm, ctx.actor, "can_add_custom_emoji_group"))) throw new JsonableError("Insufficient permission");
  if (await getActiveRealmEmoji(ctx.db, ctx.realm.id, name)) throw new JsonableError("A custom emoji with this name already exists.");
  if (files.length !== 1) throw new JsonableError("You must upload exactly one file.");
  if (unicodeEmojiCode(name) !== undefined && !isRealmAdmin(ctx.actor)) throw new JsonableError("Only administrators can override default emoji.");
  const [file] = files;
  checkFileSize(file, ctx.config.maxEmojiBytes);
  const ext = imageExtension(file.data);
  if (ext === null) throw new JsonableError("Invalid image format");
  const written: string[] = [];
  try {
    await withTransaction(ctx, async (tx, emit) => {
      // A concurrent upload of the same name loses here rather than creating a duplicate.
      if (await getActiveRealmEmoji(tx, ctx.realm.id, name)) throw new JsonableError("A custom emoji with this name already exists.");
      const row = await insertRealmEmoji(tx, { realm_id: ctx.realm.id, name, file_name: "", author_id: ctx.actor.id, deactivated: 0, is_animated: 0 });
      const fileName = `${row.id}.${ext}`;
      await setRealmEmojiFileName(tx, ctx.realm.id, row.id, fileName);
      const stored = `${ctx.realm.id}/${fileName}`;
      await writeStoredFile(ctx.config.uploadsDir, "emoji", stored, file.data);
      written.push(stored);
      await emitRealmEmoji(tx, ctx, emit);
    });
  } catch (err) {
    await removeStoredFiles(ctx.config.uploadsDir, "emoji", written);
    throw err;
  }
}

/** Deactivates a custom emoji: its author or an administrator may. */
export async function deactivateEmoji(ctx: AuthedCtx, name: string): Promise<void> {
  await withTransaction(ctx, async (tx, emit) => {
    const emoji = await getActiveRealmEmoji(tx, ctx.realm.id, name);
    if (!emoji) throw new JsonableError(`Emoji '${name}' does not exist`, { status: 404 });
    if (!isRealmAdmin(ctx.actor) && emoji.author_id !== ctx.actor.id) throw new JsonableError("Must be an organization administrator or emoji author");
    await deactivateRealmEmoji(tx, ctx.realm.id, emoji.id);
    await emitRealmEmoji(tx, ctx, emit);
  });
}

/** A custom emoji's image (public, as Zulip serves /user_avatars/), or null when there is none. */
export async function readEmojiImage(config: Config, realmId: number, fileName: string): Promise<{ data: Buffer; contentType: string } | null> {
  const contentType = emojiContentType(fileName);
  if (contentType === null) return null;
  const data = await readStoredFile(config.uploadsDir, "emoji", `${realmId}/${fileName}`);
  return data === null ? null : { data, contentType };
}
