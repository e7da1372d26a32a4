/**
 * Table types of email notifications of messages (listed in schema.ts's Database): the jobs a
 * send writes for its recipients who could be emailed, the missed-message emails waiting out
 * their recipient's batching period (Zulip's ScheduledMessageNotificationEmail), and when each
 * user was last considered for a digest.
 */
import type { Generated, Insertable, Selectable } from "kysely";

/**
 * One send's recipients who could be emailed about it and why, as of the send (a job of
 * store/engine/job-tables.ts): the worker decides who is away and queues their emails.
 */
export interface EmailNotifyJobTable {
  id: Generated<number>;
  realm_id: number;
  message_id: number;
  /** JSON `[[userId, reasons], ...]` (actions/push/notify-facts.ts). */
  recipients: string;
  failed_tries: Generated<number>;
  /** When the job may next be tried, UNIX milliseconds (moved forward while a worker holds it). */
  due_at_ms: number;
}

/** A stored email-notification job. */
export type EmailNotifyJobRow = Selectable<EmailNotifyJobTable>;

/**
 * A message a user is to be emailed about once their batch is due: the batch of a user is all
 * their rows, due at the earliest row's `due_at_ms` (its send plus the user's
 * email_notifications_batching_period_seconds). One row per user and message.
 */
export interface MissedMessageEmailTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  message_id: number;
  /** Upstream's trigger name (actions/push/triggers.ts EmailTrigger). */
  trigger: string;
  /** The group whose mention notified the user, when not their name (mentioned only). */
  mentioned_group_id: number | null;
  /** UNIX milliseconds. */
  due_at_ms: number;
}

/** A stored missed-message email row. */
export type MissedMessageEmailRow = Selectable<MissedMessageEmailTable>;
/** A missed-message email row to insert. */
export type NewMissedMessageEmail = Insertable<MissedMessageEmailTable>;

/**
 * When a user was last given a digest, or found to have nothing for one (Zulip's RealmAuditLog
 * USER_DIGEST_EMAIL_CREATED): the next digest pass leaves them out for a day.
 */
export interface DigestEmailTable {
  user_id: number;
  realm_id: number;
  /** UNIX seconds. */
  last_digest_at: number;
}
