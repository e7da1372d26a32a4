/** GET /attachments and DELETE /attachments/{id}: the caller's own uploads. */
import { attachmentRemoveEvent } from "../../events/kinds/attachments.ts";
import { removeStoredFiles } from "../../files/storage.ts";
import { JsonableError } from "../../errors.ts";
import { presentAttachment, type ApiAttachment } from "../../present/attachments.ts";
import { deleteAttachments, getAttachment, linkedMessages, listOwnedAttachments, realmUploadBytes } from "../../store/messages/attachments.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";

/** The caller's uploads with the messages linking them, and the realm's upload_space_used. */
export async function listAttachments(ctx: AuthedCtx): Promise<{ attachments: ApiAttachment[]; upload_space_used: number }> {
  const rows = await listOwnedAttachments(ctx.db, ctx.realm.id, ctx.actor.id);
  const messages = await linkedMessages(ctx.db, rows.map((r) => r.id));
  return {
    attachments: rows.map((r) => presentAttachment(r, messages.get(r.id) ?? [])),
    upload_space_used: await realmUploadBytes(ctx.db, ctx.realm.id),
  };
}

/** Deletes one of the caller's uploads and its file (messages keep their now-dead links, as Zulip). */
export async function removeAttachment(ctx: AuthedCtx, id: number): Promise<void> {
  const pathId = await withTransaction(ctx, async (tx, emit) => {
    const row = await getAttachment(tx, ctx.realm.id, id);
    if (!row || row.owner_id !== ctx.actor.id) throw new JsonableError("Invalid attachment");
    await deleteAttachments(tx, [row.id]);
    emit(attachmentRemoveEvent(row.id, await realmUploadBytes(tx, ctx.realm.id)), [ctx.actor.id]);
    return row.path_id;
  });
  await removeStoredFiles(ctx.config.uploadsDir, "files", [pathId]);
}
