/**
 * POST /user_uploads, and who may read an upload: its uploader, or anyone who may see a message
 * linking it (Zulip's validate_attachment_request).
 */
import crypto from "node:crypto";
import { nowSeconds } from "../../clock.ts";
import { attachmentEvent } from "../../events/kinds/attachments.ts";
import { contentTypeFor, sanitizeFileName } from "../../files/names.ts";
import { readStoredFile, removeStoredFiles, writeStoredFile } from "../../files/storage.ts";
import { temporaryToken, verifyTemporaryToken } from "../../files/temporary-url.ts";
import type { Config } from "../../config.ts";
import type { UploadedFile } from "../../files/uploaded-file.ts";
import { FileForbiddenError, FileNotFoundError, JsonableError } from "../../errors.ts";
import { canAccessChannelMessage } from "../../permissions/message-access.ts";
import { presentAttachment } from "../../present/attachments.ts";
import { getAttachment, getAttachmentByPath, insertAttachment, linkingMessageIds, realmUploadBytes, type AttachmentRow } from "../../store/messages/attachments.ts";
import type { Db } from "../../store/schema/types.ts";
import { receivedIds } from "../../store/messages/message-flags.ts";
import { getMessages } from "../../store/messages/messages.ts";
import type { MessageRow, RealmRow, UserRow } from "../../store/schema/database.ts";
import { getStreamById } from "../../store/channels/streams.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";

const MIB = 1024 * 1024;
/** How many linking messages a read-access check looks at (newest first) before refusing. */
const ACCESS_CHECK_MESSAGES = 100;

/** A byte limit as Zulip words it, in MiB. */
function mibText(bytes: number): string {
  return String(Math.round((bytes / MIB) * 100) / 100);
}

/** Refuses a file over `maxBytes`, in Zulip's words. */
export function checkFileSize(file: UploadedFile, maxBytes: number): void {
  if (file.data.length > maxBytes) throw new JsonableError(`Uploaded file is larger than the allowed limit of ${mibText(maxBytes)} MiB`);
}

/** `<realm_id>/<2 hex>/<random>/<sanitized name>`, the shape of Zulip's path_id. */
function newPathId(realmId: number, fileName: string): string {
  const shard = crypto.randomBytes(1).toString("hex");
  return [String(realmId), shard, crypto.randomBytes(18).toString("base64url"), sanitizeFileName(fileName)].join("/");
}

/** The URL of an upload: /user_uploads/ and its path_id, each segment percent-encoded. */
function uploadUrl(pathId: string): string {
  return "/user_uploads/" + pathId.split("/").map(encodeURIComponent).join("/");
}

/** Stores the one uploaded file, records it for the caller and returns its URL. */
export async function uploadFile(ctx: AuthedCtx, files: readonly UploadedFile[]): Promise<{ uri: string; url: string; filename: string }> {
  if (files.length === 0) throw new JsonableError("You must specify a file to upload");
  if (files.length > 1) throw new JsonableError("You may only upload one file at a time");
  const [file] = files;
  checkFileSize(file, ctx.config.maxUploadBytes);
  const name = file.filename.trim() === "" ? sanitizeFileName("") : file.filename;
  const pathId = newPathId(ctx.realm.id, name);
  await writeStoredFile(ctx.config.uploadsDir, "files", pathId, file.data);
  try {
    await withTransaction(ctx, async (tx, emit) => {
      const row = await insertAttachment(tx, {
        realm_id: ctx.realm.id, owner_id: ctx.actor.id, path_id: pathId, file_name: name, size: file.data.length,
        content_type: contentTypeFor(name, file.mimetype), create_time: nowSeconds(ctx.clock),
      });
      emit(attachmentEvent("add", presentAttachment(row, []), await realmUploadBytes(tx, ctx.realm.id)), [ctx.actor.id]);
    });
  } catch (err) {
    await removeStoredFiles(ctx.config.uploadsDir, "files", [pathId]);
    throw err;
  }
  const url = uploadUrl(pathId);
  return { uri: url, url, filename: name };
}

/** Whether the user may see a message (received it, or may read its channel's history). */
async function canSeeMessage(db: Db, user: UserRow, message: MessageRow): Promise<boolean> {
  if (message.stream_id === null) return (await receivedIds(db, user.id, [message])).has(message.id);
  const stream = await getStreamById(db, message.realm_id, message.stream_id);
  return stream !== undefined && canAccessChannelMessage(db, user, message, stream);
}

/** Whether the user may read an upload: theirs, or linked by a message they may see. */
export async function canReadAttachment(db: Db, user: UserRow, attachment: AttachmentRow): Promise<boolean> {
  if (attachment.owner_id === user.id) return true;
  const ids = await linkingMessageIds(db, attachment.id, ACCESS_CHECK_MESSAGES);
  for (const message of await getMessages(db, attachment.realm_id, ids)) {
    if (await canSeeMessage(db, user, message)) return true;
  }
  return false;
}

/** The upload at `pathId` (as in its URL, realm id first) if the user may read it. */
async function readableAttachment(db: Db, realm: RealmRow, user: UserRow, pathId: string): Promise<AttachmentRow> {
  const attachment = await getAttachmentByPath(db, realm.id, pathId);
  if (!attachment) throw new FileNotFoundError();
  if (!(await canReadAttachment(db, user, attachment))) throw new FileForbiddenError();
  return attachment;
}

/** A stored file ready to be served. */
export type ServedFile = { data: Buffer; fileName: string; contentType: string | null };

async function serveAttachment(uploadsDir: string, attachment: AttachmentRow): Promise<ServedFile> {
  const data = await readStoredFile(uploadsDir, "files", attachment.path_id);
  if (data === null) throw new FileNotFoundError();
  return { data, fileName: attachment.file_name, contentType: attachment.content_type };
}

/** The upload at `pathId` for an authenticated reader (GET /user_uploads/{realm_id}/{...}). */
export async function readUploadForUser(db: Db, config: Config, realm: RealmRow, user: UserRow, pathId: string): Promise<ServedFile> {
  return serveAttachment(config.uploadsDir, await readableAttachment(db, realm, user, pathId));
}

/** The last segment of upstream's thumbnail URLs: `<width>x<height>[-anim].<format>`. */
const THUMBNAIL_NAME = /^\d+x\d+(-anim)?\.(webp|jpg|jpeg|png|gif)$/;

/**
 * GET /user_uploads/thumbnail/{path_id}/{size}.{format}: upstream's thumbnail URLs, which messages
 * rendered by Zulip (and imported from it) hold. Parley keeps no thumbnails: the image itself is
 * served, to whoever may read the upload.
 */
export async function readThumbnailForUser(db: Db, config: Config, realm: RealmRow, user: UserRow, thumbnailPath: string): Promise<ServedFile> {
  const cut = thumbnailPath.lastIndexOf("/");
  if (cut <= 0 || !THUMBNAIL_NAME.test(thumbnailPath.slice(cut + 1))) throw new FileNotFoundError();
  const attachment = await readableAttachment(db, realm, user, thumbnailPath.slice(0, cut));
  if (!attachment.content_type?.startsWith("image/")) throw new FileNotFoundError();
  return serveAttachment(config.uploadsDir, attachment);
}

/** The upload a temporary URL's token names, while the token is valid. */
export async function readUploadByToken(db: Db, config: Config, token: string, nowMs: number): Promise<ServedFile> {
  const target = verifyTemporaryToken(token, nowMs);
  const attachment = target === null ? undefined : await getAttachment(db, target.realmId, target.attachmentId);
  if (!attachment) throw new FileNotFoundError();
  return serveAttachment(config.uploadsDir, attachment);
}

/** A temporary URL (60 seconds, no credentials needed) for an upload the caller may read. */
export async function temporaryUploadUrl(ctx: AuthedCtx, pathId: string): Promise<string> {
  const attachment = await readableAttachment(ctx.db, ctx.realm, ctx.actor, pathId);
  const baseName = attachment.path_id.split("/").pop() ?? "";
  return `/user_uploads/temporary/${temporaryToken({ realmId: attachment.realm_id, attachmentId: attachment.id }, ctx.clock.nowMs())}/${encodeURIComponent(baseName)}`;
}
