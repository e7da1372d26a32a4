/** POST /messages/render: the HTML a message's content would get, as the caller would send it. */
import type { AuthedCtx } from "../context.ts";
import { renderForSender } from "./render-context.ts";

/** Renders content without storing anything. */
export async function renderContent(ctx: AuthedCtx, content: string): Promise<{ rendered: string }> {
  const rendered = await renderForSender(ctx, ctx.db, ctx.actor, content);
  return { rendered: rendered.html };
}
