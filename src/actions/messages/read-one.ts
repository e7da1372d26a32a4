/** GET /messages/{message_id}: one message the caller may read, with `raw_content` (Zulip's json_fetch_raw_message). */
import type { AuthedCtx } from "../context.ts";
import { showMessages } from "./read.ts";
import { accessMessage } from "../../permissions/message-access.ts";

/** GET /messages/{message_id}. */
export async function getMessage(ctx: AuthedCtx, input: { message_id: number; apply_markdown: boolean; allow_empty_topic_name: boolean }): Promise<Record<string, unknown>> {
  const { message: row } = await accessMessage(ctx, ctx.db, input.message_id);
  const [message] = await showMessages(ctx, [row], {
    applyMarkdown: input.apply_markdown,
    clientGravatar: true,
    emptyTopicName: input.allow_empty_topic_name,
    narrow: null,
  });
  return { message, raw_content: row.content };
}
