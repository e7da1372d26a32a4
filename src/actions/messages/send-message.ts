/**
 * A caller's send (POST /messages, and incoming webhooks' messages): the one entry point of a
 * message a user or bot sends, over send.ts's checkMessage and doSendMessage.
 */
import { doEnv, withMessageTransaction, withTransaction, type AuthedCtx } from "../context.ts";
import { isMissingChannel, notifyOwnerOfMissingChannel } from "./missing-channel-notice.ts";
import { checkMessage, doSendInsertedMessage, doSendMessage, sentMessageInsert, type SendMessageInput, type SendMessageResult } from "./send.ts";

/**
 * Checks and sends a channel or direct message as the caller. A channel message is checked first
 * (reads only), outside any transaction; its transaction then leads with its insert, which the
 * store runs for it, on PostgreSQL in one statement with the other sends of its group-commit
 * batch (withMessageTransaction, store/messages/message-inserts.ts). A direct message is checked inside
 * its transaction, as checking may create its conversation. A missing channel stays the caller's
 * error, and when the caller is a bot its owner hears of it too (missing-channel-notice.ts).
 */
export async function sendMessage(ctx: AuthedCtx, input: SendMessageInput): Promise<SendMessageResult> {
  try {
    if (input.addressee.type === "stream") {
      const request = await checkMessage(ctx, ctx.db, input);
      return await withMessageTransaction(ctx, sentMessageInsert(ctx, request), (tx, emit, inserted) => doSendInsertedMessage(tx, doEnv(ctx, emit), request, inserted));
    }
    return await withTransaction(ctx, async (tx, emit) => doSendMessage(tx, doEnv(ctx, emit), await checkMessage(ctx, tx, input)));
  } catch (err) {
    if (isMissingChannel(err)) await notifyOwnerOfMissingChannel(ctx, err);
    throw err;
  }
}
