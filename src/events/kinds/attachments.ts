/** `attachment` events, sent only to the uploader. */
import type { ApiAttachment } from "../../present/attachments.ts";

/** An upload added, changed or removed, with the uploader's new total upload size. */
export type AttachmentEvent =
  | { type: "attachment"; op: "add" | "update"; attachment: ApiAttachment; upload_space_used: number }
  | { type: "attachment"; op: "remove"; attachment: { id: number }; upload_space_used: number };

/** An upload was added, or the messages linking it changed. */
export function attachmentEvent(op: "add" | "update", attachment: ApiAttachment, uploadSpaceUsed: number): AttachmentEvent {
  return { type: "attachment", op, attachment, upload_space_used: uploadSpaceUsed };
}

/** An upload was deleted. */
export function attachmentRemoveEvent(id: number, uploadSpaceUsed: number): AttachmentEvent {
  return { type: "attachment", op: "remove", attachment: { id }, upload_space_used: uploadSpaceUsed };
}
