/**
 * Attachments and messages, for the send, edit and delete actions: claiming the uploads a new
 * message links (Zulip's do_claim_attachments), following edits, and releasing uploads whose
 * last linking message was deleted. All run inside the caller's transaction.
 */
import { attachmentEvent, attachmentRemoveEvent } from "../../events/kinds/attachments.ts";
import { removeStoredFiles } from "../../files/storage.ts";
import { presentAttachment } from "../../present/attachments.ts";
import {
  attachmentIdsOfMessage, attachmentsByIds, attachmentsByPaths, deleteAttachments, linkAttachments, linkedMessages, realmUploadBytes,
  unlinkAttachments, unlinkMessages, type AttachmentRow,
} from "../../store/messages/attachments.ts";
import type { Db } from "../../store/schema/types.ts";
import { getUser } from "../../store/users/users.ts";
import type { Emit } from "../context.ts";
import { canReadAttachment } from "./uploads.ts";

/** Path ids as stored: link paths percent-decoded, realm-qualified ones only. */
function pathIds(realmId: number, linkedUploadPaths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of linkedUploadPaths) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      continue;
    }
    if (decoded.startsWith(`${realmId}/`)) out.add(decoded);
  }
  return [...out];
}

/** Sends each owner an `update` event with the attachment's current messages. */
async function notifyOwners(tx: Db, emit: Emit, realmId: number, rows: readonly AttachmentRow[]): Promise<void> {
  if (rows.length === 0) return;
  const messages = await linkedMessages(tx, rows.map((r) => r.id));
  const used = await realmUploadBytes(tx, realmId);
  for (const row of rows) emit(attachmentEvent("update", presentAttachment(row, messages.get(row.id) ?? []), used), [row.owner_id]);
}

/**
 * Links a just-sent message to the uploads it links (renderer's linkedUploadPaths). An upload is
 * claimed if the sender uploaded it or may already read it (through another message); others are
 * left alone, so nobody can share a file they cannot see. Owners get `attachment` update events.
 * Returns the ids of the attachments linked.
 */
export async function claimAttachments(
  tx: Db, realmId: number, senderId: number, messageId: number, linkedUploadPaths: readonly string[], emit: Emit,
): Promise<number[]> {
  const rows = await attachmentsByPaths(tx, realmId, pathIds(realmId, linkedUploadPaths));
  if (rows.length === 0) return [];
  const sender = await getUser(tx, realmId, senderId);
  if (!sender) return [];
  const claimable: AttachmentRow[] = [];
  for (const row of rows) if (await canReadAttachment(tx, sender, row)) claimable.push(row);
  await linkAttachments(tx, messageId, claimable.map((r) => r.id));
  await notifyOwners(tx, emit, realmId, claimable);
  return claimable.map((r) => r.id);
}

/**
 * After a content edit: links newly linked uploads (claim rules as on send) and unlinks the ones
 * the message no longer links. Unlinked uploads are kept (Zulip keeps them too).
 */
export async function syncAttachmentLinks(
  tx: Db, realmId: number, editorId: number, messageId: number, linkedUploadPaths: readonly string[], emit: Emit,
): Promise<void> {
  const before = new Set(await attachmentIdsOfMessage(tx, messageId));
  const claimed = await claimAttachments(tx, realmId, editorId, messageId, linkedUploadPaths, emit);
  const dropped = [...before].filter((id) => !claimed.includes(id));
  await unlinkAttachments(tx, messageId, dropped);
  const droppedRows = await attachmentsByIds(tx, realmId, dropped);
  await notifyOwners(tx, emit, realmId, droppedRows);
}

/**
 * Call BEFORE deleting message rows (attachment_messages references messages): unlinks the
 * messages and deletes the attachments no remaining message links, with `remove` events to their
 * owners. Returns the deleted path_ids: pass them to `removeAttachmentFiles` after commit.
 */
export async function releaseAttachmentsForDeletedMessages(tx: Db, realmId: number, messageIds: readonly number[], emit: Emit): Promise<string[]> {
  const orphaned = (await unlinkMessages(tx, messageIds)).filter((row) => row.realm_id === realmId);
  if (orphaned.length === 0) return [];
  await deleteAttachments(tx, orphaned.map((r) => r.id));
  const used = await realmUploadBytes(tx, realmId);
  for (const row of orphaned) emit(attachmentRemoveEvent(row.id, used), [row.owner_id]);
  return orphaned.map((r) => r.path_id);
}

/** Deletes released uploads' files; call after the transaction committed. */
export async function removeAttachmentFiles(uploadsDir: string, pathIdsToRemove: readonly string[]): Promise<void> {
  await removeStoredFiles(uploadsDir, "files", pathIdsToRemove);
}
