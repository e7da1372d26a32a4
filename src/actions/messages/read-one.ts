/** GET /messages/{message_id}: one message the caller may read, with `raw_content` (Zulip's json_fetch_raw_message). */
import type { AuthedCtx } from "../context.ts";
import { showMessages } from "./read.ts";
import { accessMessage } from "../../permissions/message-access.ts";

/** GET /messages/{message_id}. */
export async function getMessage(ctx: AuthedCtx, input: { messageId: number; applyMarkdown: boolean; allowEmptyTopicName: boolean }): Promise<Record<string, unknown>> {
  const { message: row } = await accessMessage(ctx, ctx.db, input.messageId);
  const [message] = await showMessages(ctx, [row], {
    applyMarkdown: input.applyMarkdown,
    clientGravatar: true,
    emptyTopicName: input.allowEmptyTopicName,
    narrow: null,
  });
  return { message, raw_content: row.content };
}
