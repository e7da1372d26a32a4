/**
 * One conversation's missed-message email for one user (Zulip's
 * do_send_missedmessage_events_reply_in_zulip): the conversation it names, the messages with
 * their senders (a guest who may not see a sender reads "Unknown user"), why it was sent, the
 * link back into the web app, and whether the content may be shown at all.
 */
import { realmSettings } from "../../permissions/realm-settings.ts";
import { idsWithoutAccessTo } from "../../permissions/user-access.ts";
import { emailMessage, type EmailMessage } from "../../present/email-content.ts";
import { channelNarrow, encodeHashComponent } from "../../markdown/urls.ts";
import { ROLE } from "../../model/roles.ts";
import { userSetting } from "../../model/user-settings.ts";
import { effectiveMemberIds } from "../../store/groups/group-membership.ts";
import { groupsByIds } from "../../store/groups/user-groups.ts";
import { getStreamById } from "../../store/channels/streams.ts";
import { directRecipientMembers } from "../../store/messages/messages.ts";
import { activeAccountsWithEmail } from "../../store/messages/missed-message-emails.ts";
import type { MessageRow, RealmRow, UserRow } from "../../store/schema/database.ts";
import type { MissedMessageEmailRow } from "../../store/schema/email-notifications.ts";
import type { Db } from "../../store/schema/types.ts";
import { realmUsersById } from "../../store/users/users.ts";
import type { Email } from "../email/outbox.ts";
import { missedMessagesEmail, type MissedConversation, type MissedMessagesInput, type MissedReasons } from "../email/templates/missed-messages.ts";
import type { ListedMessage } from "../email/templates/message-blocks.ts";

/** One conversation of a user's batch: its messages (the missed ones and any context before them), and the rows naming the missed ones. */
export type Bucket = { messages: MessageRow[]; rows: MissedMessageEmailRow[] };

/**
 * Messages as emails show them, by id and edit time: a channel message emailed to many people
 * is rendered for email once. Bounded; past the bound it starts over.
 */
const renderedForEmail = new Map<string, EmailMessage>();
const MAX_RENDERED = 2_000;

/** The message as emails show it, rendered once per edit. */
export function cachedEmailMessage(m: MessageRow, siteUrl: string): EmailMessage {
  const key = `${m.id}:${m.last_edit_time ?? 0}`;
  let rendered = renderedForEmail.get(key);
  if (!rendered) {
    rendered = emailMessage(m, siteUrl);
    if (renderedForEmail.size >= MAX_RENDERED) renderedForEmail.clear();
    renderedForEmail.set(key, rendered);
  }
  return rendered;
}

/** How upstream marks a resolved topic. */
const RESOLVED_TOPIC_PREFIX = "✔ ";

/** realm_name_in_email_notifications_policy's values. */
const REALM_NAME_POLICY = { automatic: 1, always: 2, never: 3 } as const;

/** Zulip's personal_narrow_url slug: the name with spaces and URL-unsafe characters as dashes. */
function nameSlug(name: string): string {
  return name.replace(/[ "%/<>`\u0000-\u001f\u007f-\u009f]+/g, "-");
}

/** The conversation as the email names it, and its address in the web app. */
async function conversationOf(tx: Db, realm: RealmRow, siteUrl: string, user: UserRow, first: MessageRow, senderNames: string[]): Promise<{ conversation: MissedConversation; narrowUrl: string }> {
  if (first.stream_id !== null) {
    const stream = await getStreamById(tx, realm.id, first.stream_id);
    const name = stream?.name ?? "";
    const shown = first.topic === "" ? realmSettings(realm).realm_empty_topic_display_name : first.topic;
    const resolved = shown.startsWith(RESOLVED_TOPIC_PREFIX);
    const topic = resolved ? shown.slice(RESOLVED_TOPIC_PREFIX.length) : shown;
    return {
      conversation: { kind: "channel", channel: name, topic, resolved },
      narrowUrl: `${siteUrl}/${channelNarrow(first.stream_id, name)}/topic/${encodeHashComponent(first.topic)}`,
    };
  }
  const members = (await directRecipientMembers(tx, [first.recipient_id])).get(first.recipient_id) ?? [];
  const others = members.filter((id) => id !== user.id);
  const users = await realmUsersById(tx, realm.id);
  if (others.length >= 2) {
    return {
      conversation: { kind: "group", otherNames: others.map((id) => users.get(id)?.full_name ?? "Unknown user") },
      narrowUrl: `${siteUrl}/#narrow/dm/${others.join(",")}-group`,
    };
  }
  const other = users.get(others[0] ?? first.sender_id);
  return {
    conversation: { kind: "direct", senders: senderNames },
    narrowUrl: `${siteUrl}/#narrow/dm/${other?.id ?? first.sender_id}-${nameSlug(other?.full_name ?? "")}`,
  };
}

/** The name each sender shows as to the user (by sender id). */
async function senderNamesFor(tx: Db, realm: RealmRow, user: UserRow, messages: readonly MessageRow[]): Promise<Map<number, string>> {
  const users = await realmUsersById(tx, realm.id);
  const out = new Map<number, string>();
  for (const m of messages) {
    if (out.has(m.sender_id)) continue;
    const sender = users.get(m.sender_id);
    // Only a guest may not see a sender, and only a channel message's.
    const hidden = sender && user.role === ROLE.guest && m.stream_id !== null ? (await idsWithoutAccessTo(tx, realm, sender, [user.id])).has(user.id) : false;
    out.set(m.sender_id, !sender || hidden ? "Unknown user" : sender.full_name);
  }
  return out;
}

/** Why the email is sent (Zulip's get_mentioned_user_group: the smallest group, unless a mention by name counted). */
async function reasonsOf(tx: Db, realm: RealmRow, rows: readonly MissedMessageEmailRow[]): Promise<MissedReasons> {
  const triggers = new Set(rows.map((r) => r.trigger));
  const personallyMentioned = rows.some((r) => r.trigger === "mentioned" && r.mentioned_group_id === null);
  const groupIds = [...new Set(rows.flatMap((r) => (r.mentioned_group_id === null ? [] : [r.mentioned_group_id])))];
  if (personallyMentioned || groupIds.length === 0) return { triggers, personallyMentioned, mentionedGroup: null };
  let smallest: { name: string; size: number } | null = null;
  for (const group of await groupsByIds(tx, realm.id, groupIds)) {
    const size = (await effectiveMemberIds(tx, group.id)).length;
    if (smallest === null || size < smallest.size) smallest = { name: group.name ?? "", size };
  }
  return { triggers, personallyMentioned, mentionedGroup: smallest?.name ?? null };
}

/** Whether the subject ends with the organization's name (Zulip's include_realm_name_in_missedmessage_emails_subject). */
export async function realmNameInSubject(tx: Db, user: UserRow): Promise<boolean> {
  const policy = Number(userSetting(user, "realm_name_in_email_notifications_policy"));
  if (policy === REALM_NAME_POLICY.automatic) return (await activeAccountsWithEmail(tx, user.delivery_email)) > 1;
  return policy === REALM_NAME_POLICY.always;
}

/** The user's part of every email of their batch: who they are, and whether the subject names the organization. */
export type Reader = { user: UserRow; realmNameInSubject: boolean };

/** The email about one conversation of the user's batch. */
export async function conversationEmail(tx: Db, realm: RealmRow, siteUrl: string, reader: Reader, bucket: Bucket): Promise<Email> {
  const { user } = reader;
  const messages = [...bucket.messages].sort((a, b) => a.date_sent - b.date_sent || a.id - b.id);
  const names = await senderNamesFor(tx, realm, user, messages);
  const senderNames = [...new Set(messages.map((m) => names.get(m.sender_id) ?? "Unknown user"))];
  const { conversation, narrowUrl } = await conversationOf(tx, realm, siteUrl, user, messages[0], senderNames);
  const hiddenBy = !realmSettings(realm).message_content_allowed_in_email_notifications ? "realm" : userSetting(user, "message_content_in_email_notifications") !== true ? "user" : null;
  const listed: ListedMessage[] = messages.map((m) => ({ sender: names.get(m.sender_id) ?? "Unknown user", content: cachedEmailMessage(m, siteUrl) }));
  const input: MissedMessagesInput = {
    realmName: realm.name,
    realmUrl: siteUrl,
    conversation,
    messages: hiddenBy === null ? listed : { hiddenBy },
    reasons: await reasonsOf(tx, realm, bucket.rows),
    narrowUrl,
    realmNameInSubject: reader.realmNameInSubject,
  };
  const rendered = missedMessagesEmail(input);
  return { to: user.delivery_email, subject: rendered.subject, body: rendered.body, html: rendered.html };
}
