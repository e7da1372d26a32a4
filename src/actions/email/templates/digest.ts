/**
 * The digest email (Zulip's zerver/emails/digest.{subject.txt,txt,html}): for a user away for
 * days, the liveliest conversations of their channels with their first messages, and the
 * channels created meanwhile; or, where message content may not be emailed, only how many new
 * messages and channels there are. Pure.
 */
import { escapeText } from "../../../markdown/escape.ts";
import { displayList, emailPage, link, senderBlocks, type ListedMessage } from "./message-blocks.ts";
import type { RenderedEmail } from "./missed-messages.ts";

/** A hot conversation: its channel and topic with their links, its first messages, and the rest counted. */
export type HotConversation = {
  channel: { name: string; url: string };
  topic: { name: string; url: string };
  /** Its first few messages, oldest first. */
  messages: readonly ListedMessage[];
  /** Messages by people beyond those shown. */
  more: number;
  /** The names of everyone who wrote in it, sorted. */
  participants: readonly string[];
};

/** Everything the digest says. */
export type DigestInput = {
  realmName: string;
  realmUrl: string;
  /** What happened, or (content hidden from emails, by whom first) only how much. */
  content: { hot: readonly HotConversation[]; newChannels: ReadonlyArray<{ name: string; url: string }> } | { hiddenBy: "realm" | "user"; newMessages: number; newChannels: number };
};

/** Zulip's pluralize filter on "message". */
const messages = (n: number) => (n === 1 ? "message" : "messages");

/** The counts sentence of a digest without content. */
function countsLine(newMessages: number, newChannels: number, realm: string): string {
  if (newMessages > 0 && newChannels > 0) return `You have ${newMessages} new messages, and there are ${newChannels} new channels in ${realm}.`;
  if (newMessages > 0) return `You have ${newMessages} new messages in ${realm}.`;
  return `There are ${newChannels} new channels in ${realm}.`;
}

function hiddenLine(hiddenBy: "realm" | "user"): string {
  return hiddenBy === "realm"
    ? "This email does not include message content because your organization hides message content in email notifications."
    : "This email does not include message content because you have chosen to hide message content in email notifications.";
}

/** The conversation's plain text and HTML. */
function conversationParts(c: HotConversation): { plain: string; html: string } {
  const blocks = senderBlocks(c.messages, true);
  const moreLine = c.more > 0 ? `+ ${c.more} more ${messages(c.more)} by ${displayList(c.participants, 4)}.` : "";
  const plain = [`${c.channel.name} > ${c.topic.name}`, ...blocks.flatMap((b) => b.messages.map((m) => m.plain)), ...(moreLine === "" ? [] : [moreLine]), ""].join("\n");
  const html = [
    "<div class='messages'>",
    "<div class='hot_convo_recipient_block'>",
    `<div class='hot_convo_recipient_header'>${link(c.channel.url, c.channel.name)} &gt; ${link(c.topic.url, c.topic.name)}</div>`,
    `<div class='hot_convo_message_content'>${blocks.flatMap((b) => b.messages.map((m) => `<div class='hot_convo_message_content_block'>${m.html}</div>`)).join("\n")}</div>`,
    "</div>",
    moreLine === "" ? "" : `<p>${escapeText(moreLine)}</p>`,
    "</div>",
  ].join("\n");
  return { plain, html };
}

/** The digest email. */
export function digestEmail(input: DigestInput): RenderedEmail {
  const { content, realmName, realmUrl } = input;
  const settingsUrl = `${realmUrl}/#settings/notifications`;
  const text: string[] = [];
  const html: string[] = [];
  if ("hot" in content) {
    for (const c of content.hot) {
      const parts = conversationParts(c);
      text.push(parts.plain);
      html.push(parts.html);
    }
    if (content.newChannels.length > 0) {
      text.push("** New channels **", `    ${displayList(content.newChannels.map((c) => c.name), 1000)}.`, "");
      html.push("<p><b>New channels</b></p>", `<p>${displayList(content.newChannels.map((c) => link(c.url, c.name)), 1000)}.</p>`);
    }
  } else {
    const counts = countsLine(content.newMessages, content.newChannels, realmName);
    text.push(counts, "", hiddenLine(content.hiddenBy), "");
    html.push(`<p>${escapeText(counts)}</p>`, `<p>${escapeText(hiddenLine(content.hiddenBy))}</p>`);
  }
  text.push(`Log in to ${realmName} to catch up: ${realmUrl}`, "", "--", "Manage email preferences:", "", settingsUrl, "");
  html.push(`<p>${link(realmUrl, "Log in")} to ${escapeText(realmName)} to catch up.</p>`);
  const footer = `<p class="email-preferences">${link(settingsUrl, "Manage email preferences")}</p>`;
  const subject = `Digest for ${realmName}`;
  return { subject, body: text.join("\n"), html: emailPage(subject, html.join("\n"), footer) };
}
