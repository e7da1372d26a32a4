/** POST /messages/render: the HTML a message's content would get, as the caller would send it. */
import { JsonableError } from "../../errors.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import type { AuthedCtx } from "../context.ts";
import { renderForSender } from "./render-context.ts";

/** Whether `text` has more than `max` code points (Python's len), reading at most ~2 × max units. */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point: count it once.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    if (++count > max) return true;
  }
  return false;
}

/**
 * Renders content without storing anything. Content is bounded as upstream bounds it (at most
 * MAX_MESSAGE_LENGTH, 10,000 characters: Zulip's StringConstraints on this endpoint, with its
 * "string_too_long" wording); sends truncate to the same length, so nothing larger is rendered.
 */
export async function renderContent(ctx: AuthedCtx, content: string): Promise<{ rendered: string }> {
  const max = realmSettings(ctx.realm).max_message_length;
  if (longerThan(content, max)) throw new JsonableError(`content is too long (limit: ${max} characters)`);
  const rendered = await renderForSender(ctx, ctx.db, ctx.actor, content);
  return { rendered: rendered.html };
}
