/**
 * The send's part of missed-message emails (Zulip's get_recipient_info, for email): in the
 * send's transaction, one job recording which recipients could be emailed about the message and
 * why, as of the send (the facts push uses, with the email switches: push/notify-facts.ts). Who is
 * away is decided by the worker just after the commit (decide.ts), off the sender's path.
 */
import { systemClock } from "../../clock.ts";
import { insertEmailNotifyJob } from "../../store/messages/missed-message-emails.ts";
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
