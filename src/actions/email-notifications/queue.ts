/**
 * The send's part of missed-message emails (Zulip's get_recipient_info, for email): in the
 * send's transaction, one job recording which recipients could be emailed about the message and
 * why, as of the send (the facts push uses, with the email switches: push/notify-facts.ts). Who is
 * away is decided by the worker just after the commit (decide.ts), off the sender's path.
 */
import { systemClock } from "../../clock.ts";
import { defaultFlagBits } from "../../store/messages/message-flags.ts";
import { insertEmailNotifyJob } from "../../store/messages/missed-message-emails.ts";
import { flagRowsOfUsers } from "../../store/push/push-notifications.ts";
import type { MessageRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import type { DoEnv } from "../context.ts";
import { notifyFacts, type SentMessage } from "../push/notify-facts.ts";
import { emailNotifyJobQueued } from "./signal.ts";

/**
 * Writes the job for the recipients of a sent message who could be emailed about it. Nothing
 * without SMTP_URL, and no job when nobody could be (what the facts read is kept by the read
 * cache, so such a send runs no statement for it).
 */
export async function doQueueMessageEmails(tx: Db, env: Pick<DoEnv, "realm" | "config" | "emit">, sent: SentMessage, recipientIds: readonly number[]): Promise<void> {
  if (env.config.smtp === null || recipientIds.length === 0) return;
  const facts = await notifyFacts(tx, sent, recipientIds, "email");
  if (facts.length === 0) return;
  // Job tables run on real time, as their workers do (not a test's manual clock).
  await insertEmailNotifyJob(tx, { realm_id: env.realm.id, message_id: sent.message.id, recipients: JSON.stringify(facts), due_at_ms: systemClock.nowMs() });
  env.emit.afterCommit(emailNotifyJobQueued.fire);
}

/**
 * An edit mentioned these users anew (Zulip's maybe_enqueue_notifications_for_message_update):
 * their emails, decided on their flags as the edit left them. A user already waiting on the
 * message keeps their one row.
 */
export async function doQueueEditEmails(tx: Db, env: Pick<DoEnv, "realm" | "config" | "emit">, message: MessageRow, userIds: number[]): Promise<void> {
  if (env.config.smtp === null || userIds.length === 0) return;
  const flags = await flagRowsOfUsers(tx, message.id, userIds);
  await doQueueMessageEmails(tx, env, { message, flagsOf: (id) => flags.get(id) ?? defaultFlagBits(id, message) }, userIds);
}
