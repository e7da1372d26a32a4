/**
 * The missed-message email (Zulip's zerver/emails/missed_message.{subject.txt,txt,html}): one
 * conversation's messages a user missed while away, its subject naming the conversation, why it
 * was sent, and where to reply and change the settings. Pure.
 */
import { escapeText } from "../../../markdown/escape.ts";
import { displayList, emailPage, link, senderBlocks, type ListedMessage } from "./message-blocks.ts";

/** The conversation an email is about. */
export type MissedConversation =
  | { kind: "direct"; senders: string[] }
  | { kind: "group"; otherNames: string[] }
  | { kind: "channel"; channel: string; topic: string; resolved: boolean };

/**
 * Why the email was sent: its messages' triggers (upstream's names: actions/push/triggers.ts
 * EmailTrigger), whether one was a mention by name, and else the group whose mention counted
 * (Zulip's mentioned_user_group_name).
 */
export type MissedReasons = { triggers: ReadonlySet<string>; personallyMentioned: boolean; mentionedGroup: string | null };

/** Everything the email says. */
export type MissedMessagesInput = {
  realmName: string;
  realmUrl: string;
  conversation: MissedConversation;
  /** The messages, oldest first; or who hid message content from emails (the organization first, as upstream says). */
  messages: readonly ListedMessage[] | { hiddenBy: "realm" | "user" };
  reasons: MissedReasons;
  /** The conversation in the web app. */
  narrowUrl: string;
  /** Whether the subject ends with the organization's name (realm_name_in_email_notifications_policy). */
  realmNameInSubject: boolean;
};

/** A rendered email: subject, plain text, HTML. */
export type RenderedEmail = { subject: string; body: string; html: string };

/** Zulip's names a group conversation's subject: "A and B", "A, B, and C", "A, B, and 2 others". */
function groupName(names: readonly string[]): string {
  if (names.length <= 3) return displayList(names, 3);
  return `${names.slice(0, 2).join(", ")}, and ${names.length - 2} others`;
}

function subjectOf(input: MissedMessagesInput): string {
  const c = input.conversation;
  let subject = "New messages";
  if (!("hiddenBy" in input.messages)) {
    if (c.kind === "group") subject = `Group DMs with ${groupName(c.otherNames)}`;
    else if (c.kind === "direct") subject = `DMs with ${c.senders.join(", ")}`;
    else subject = `${c.resolved ? "[resolved] " : ""}#${c.channel} > ${c.topic}`;
  }
  return input.realmNameInSubject ? `${subject} [${input.realmName}]` : subject;
}

/** The "You are receiving this because ..." line, in upstream's order; null for direct messages. */
function reasonLine(input: MissedMessagesInput): string | null {
  const { triggers, personallyMentioned, mentionedGroup } = input.reasons;
  const c = input.conversation;
  const where = c.kind === "channel" ? { channel: c.channel, topic: c.topic } : { channel: "", topic: "" };
  if (personallyMentioned) return "You are receiving this because you were personally mentioned.";
  if (mentionedGroup !== null) return `You are receiving this because @${mentionedGroup} was mentioned.`;
  const topicWildcard = `You are receiving this because all topic participants were mentioned in #${where.channel} > ${where.topic}.`;
  if (triggers.has("topic_wildcard_mentioned_in_followed_topic")) return topicWildcard;
  if (triggers.has("stream_wildcard_mentioned_in_followed_topic")) return "You are receiving this because you have wildcard mention notifications enabled for topics you follow.";
  if (triggers.has("topic_wildcard_mentioned")) return topicWildcard;
  if (triggers.has("stream_wildcard_mentioned")) return `You are receiving this because everyone was mentioned in #${where.channel}.`;
  if (triggers.has("followed_topic_email_notify")) return "You are receiving this because you have email notifications enabled for topics you follow.";
  if (triggers.has("stream_email_notify")) return `You are receiving this because you have email notifications enabled for #${where.channel}.`;
  return null;
}

/** Why the content is missing. */
function hiddenLine(hiddenBy: "realm" | "user"): string {
  return hiddenBy === "realm"
    ? "This email does not include message content because your organization hides message content in email notifications."
    : "This email does not include message content because you have chosen to hide message content in email notifications.";
}

const NO_REPLY = "Do not reply to this email. This server is not configured to accept incoming emails.";

/** The missed-message email of one conversation. */
export function missedMessagesEmail(input: MissedMessagesInput): RenderedEmail {
  const hidden = "hiddenBy" in input.messages ? input.messages.hiddenBy : null;
  const blocks = "hiddenBy" in input.messages ? [] : senderBlocks(input.messages, input.conversation.kind !== "direct");
  const reason = reasonLine(input);
  const settingsUrl = `${input.realmUrl}/#settings/notifications`;
  const replyWords = hidden === null ? `Reply in ${input.realmName}` : `View or reply in ${input.realmName}`;
  const text = [
    ...(hidden === null ? blocks.flatMap((b) => b.messages.map((m) => `${m.plain}\n`)) : [`${hiddenLine(hidden)}\n`]),
    "--",
    ...(reason === null ? [] : [reason]),
    "",
    `${replyWords}:`,
    "",
    input.narrowUrl,
    "",
    ...(hidden === null ? [NO_REPLY, ""] : []),
    "Manage email preferences:",
    "",
    settingsUrl,
    "",
  ].join("\n");
  const content =
    hidden === null
      ? blocks.map((b) => `<div class="missed_message">${b.messages.map((m) => m.html).join("\n")}</div>`).join("\n")
      : `<div class="missed_message no-content-explanation">${escapeText(hiddenLine(hidden))}</div>`;
  const footer = [
    '<div class="email-preferences">&mdash;<br>',
    reason === null ? "" : `${escapeText(reason)}<br>`,
    `${link(input.narrowUrl, replyWords)}, or ${link(settingsUrl, "manage email preferences")}.<br>`,
    hidden === null ? `<br>${escapeText(NO_REPLY)}` : "",
    "</div>",
  ].join("\n");
  const subject = subjectOf(input);
  return { subject, body: text, html: emailPage(subject, content, footer) };
}
