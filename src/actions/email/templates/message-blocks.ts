/**
 * What the message emails share (Zulip's email_base_messages.html and build_message_list): a
 * conversation's messages collapsed into runs by sender, each run's first message starting
 * with the sender's name where the conversation has several people; lists of names; and the
 * page around the content. Pure: every value is escaped here or comes escaped from
 * present/email-content.ts.
 */
import { escapeAttr, escapeText } from "../../../markdown/escape.ts";
import { withSender, type EmailMessage } from "../../../present/email-content.ts";

/** One message of a conversation, with its sender's name. */
export type ListedMessage = { sender: string; content: EmailMessage };

/** A run of messages by one sender. */
export type SenderBlock = { sender: string; messages: EmailMessage[] };

/**
 * The messages (oldest first) as runs by sender; `named`: the first message of each run starts
 * with its sender's name (channels and group conversations; a one-to-one conversation's
 * messages are the other person's, as its subject says).
 */
export function senderBlocks(messages: readonly ListedMessage[], named: boolean): SenderBlock[] {
  const blocks: SenderBlock[] = [];
  for (const { sender, content } of messages) {
    const last = blocks.at(-1);
    if (last && last.sender === sender) last.messages.push(content);
    else blocks.push({ sender, messages: [named ? withSender(content, sender) : content] });
  }
  return blocks;
}

/** Zulip's display_list: "A", "A and B", "A, B, and C", past `limit` names "A, B, C, and 2 others". */
export function displayList(values: readonly string[], limit: number): string {
  if (values.length === 0) return "";
  if (values.length === 1) return values[0];
  if (values.length <= limit) {
    if (values.length === 2) return `${values[0]} and ${values[1]}`;
    return `${values.slice(0, -1).join(", ")}, and ${values.at(-1)}`;
  }
  const others = values.length - limit;
  return `${values.slice(0, limit).join(", ")}, and ${others} ${others === 1 ? "other" : "others"}`;
}

/** A link, escaped. */
export function link(url: string, text: string): string {
  return `<a href="${escapeAttr(url)}">${escapeText(text)}</a>`;
}

/** Styles of the message emails, inline in their head (mail clients drop linked sheets). */
const STYLE = [
  "body { font-family: sans-serif; font-size: 14px; line-height: 1.4; margin: 0; padding: 0; background-color: #f5f9f8; }",
  ".content { max-width: 580px; margin: 20px auto 0; padding: 10px 20px 20px; background-color: #fff; border-radius: 3px; }",
  ".missed_message { padding-bottom: 10px; }",
  ".messages { margin-bottom: 12px; }",
  ".hot_convo_recipient_block { border: 1px solid #000; }",
  ".hot_convo_recipient_header { background-color: #9ec9ff; border-bottom: 1px solid #000; font-weight: bold; padding: 2px; }",
  ".hot_convo_message_content_block { padding-left: 6px; }",
  ".email-preferences { color: #666; }",
  ".email-preferences a { color: #15c; }",
  "blockquote { border-left: 4px solid #ddd; margin: 0 0 0 4px; padding-left: 8px; color: #555; }",
  "pre, code { background-color: #f5f5f5; font-size: 12px; }",
].join("\n");

/** The page around an email's content (`contentHtml` and `footerHtml` are markup). */
export function emailPage(title: string, contentHtml: string, footerHtml: string): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    `<head><meta charset="UTF-8"><meta name="viewport" content="width=device-width"><title>${escapeText(title)}</title><style>${STYLE}</style></head>`,
    "<body>",
    `<div class="content">${contentHtml}${footerHtml}</div>`,
    "</body>",
    "</html>",
  ].join("\n");
}
