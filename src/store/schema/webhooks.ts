/** Table types of outgoing-webhook deliveries (listed in schema.ts's Database). */
import type { Generated, Selectable } from "kysely";

/**
 * One pending POST of a message to an outgoing-webhook bot's service (Zulip's `outgoing_webhooks`
 * queue event), written in the transaction of the message and deleted once handled.
 */
export interface OutgoingWebhookJobTable {
  id: Generated<number>;
  realm_id: number;
  bot_user_id: number;
  message_id: number;
  /** "mention" or "direct_message". */
  trigger: string;
  /** Attempts that failed so far (Zulip's failed_tries). */
  failed_tries: Generated<number>;
  /**
   * When the job may next be tried, UNIX milliseconds; a worker that takes it moves this past its
   * request's timeout, so a job whose worker died comes due again.
   */
  due_at_ms: number;
}

/** A stored outgoing-webhook job. */
export type OutgoingWebhookJobRow = Selectable<OutgoingWebhookJobTable>;
