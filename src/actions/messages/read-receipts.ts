/** GET /messages/{message_id}/read_receipts (Zulip's zerver/views/read_receipts.py). */
import { JsonableError } from "../../errors.ts";
import { accessMessage } from "../../permissions/message-access.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { messageReaders } from "../../store/messages/read-receipts.ts";
import { userSetting } from "../../model/user-settings.ts";
import type { AuthedCtx } from "../context.ts";

/**
 * Ids of the users who read a message the caller may see: active readers who share read
 * receipts, never the sender, nor anyone who muted the caller or whom the caller muted (so a
 * muter, who reads the muted user's messages at once, is not given away). The caller appears
 * when they read it. Refused when the organization turned read receipts off.
 */
export async function getReadReceipts(ctx: AuthedCtx, messageId: number): Promise<number[]> {
  const { message } = await accessMessage(ctx, ctx.db, messageId);
  if (!realmSettings(ctx.realm).enable_read_receipts) throw new JsonableError("Read receipts are disabled in this organization.");
  const readers = await messageReaders(ctx.db, ctx.realm.id, message, ctx.actor.id);
  return readers.filter((u) => userSetting(u, "send_read_receipts") === true).map((u) => u.id);
}
