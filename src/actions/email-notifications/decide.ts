/**
 * Deciding a send's missed-message emails (Zulip's maybe_enqueue_notifications for email, and
 * the missedmessage_emails worker's consume): of the recipients the send recorded, those away
 * now (push/away.ts) are emailed for their first reason; each message joins the user's batch,
 * due the user's email_notifications_batching_period_seconds after it (a batch goes out when
 * its earliest message is due, with everything it holds by then: compose.ts).
 */
import { nowSeconds, type Clock } from "../../clock.ts";
import { userSetting } from "../../model/user-settings.ts";
import { getMessage } from "../../store/messages/messages.ts";
import { insertMissedMessageEmails } from "../../store/messages/missed-message-emails.ts";
import type { RealmRow } from "../../store/schema/database.ts";
import type { NewMissedMessageEmail } from "../../store/schema/email-notifications.ts";
import type { Db } from "../../store/schema/types.ts";
import { realmUsersById } from "../../store/users/users.ts";
import { awayUsers, type QueueHolders } from "../push/away.ts";
import { mentioningGroup, messageMentions } from "../push/mentioned-groups.ts";
import type { NotifyFacts } from "../push/notify-facts.ts";
import { emailTrigger } from "../push/triggers.ts";

/** What deciding reads besides the database: who holds an event queue, and the clock presence is written on. */
export type DecideEnv = { holders: QueueHolders; clock: Clock };

/**
 * Adds the message to the batches of its recipients who are away; returns how many. `nowMs`:
 * real time, which batches come due on.
 */
export async function doDecideMessageEmails(tx: Db, env: DecideEnv, realm: RealmRow, job: { message_id: number; recipients: string }, nowMs: number): Promise<number> {
  const message = await getMessage(tx, realm.id, job.message_id);
  if (!message) return 0;
  const facts = JSON.parse(job.recipients) as NotifyFacts;
  const away = await awayUsers(tx, realm.id, env.holders, facts.map(([id]) => id), nowSeconds(env.clock));
  const users = await realmUsersById(tx, realm.id);
  const chosen = facts.flatMap(([id, reasons]) => {
    const trigger = emailTrigger(reasons);
    const user = users.get(id);
    return trigger !== null && user && user.is_active === 1 && away.has(id) ? [{ user, trigger }] : [];
  });
  if (chosen.length === 0) return 0;
  const mentions = chosen.some((c) => c.trigger === "mentioned") ? await messageMentions(tx, realm.id, message.rendered_content) : null;
  const rows: NewMissedMessageEmail[] = chosen.map(({ user, trigger }) => ({
    realm_id: realm.id,
    user_id: user.id,
    message_id: message.id,
    trigger,
    mentioned_group_id: trigger === "mentioned" && mentions ? (mentioningGroup(mentions, user.id)?.id ?? null) : null,
    due_at_ms: nowMs + Number(userSetting(user, "email_notifications_batching_period_seconds")) * 1000,
  }));
  await insertMissedMessageEmails(tx, rows);
  return rows.length;
}
