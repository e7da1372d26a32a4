/**
 * Opens a subscription period for every active subscription that has none: subscriptions made
 * before subscription periods were written (store/channels/subscriptions.ts) would otherwise receive
 * nothing. Such a subscriber receives messages from the next one on, as a new subscriber would.
 */
import { sql, type Kysely, type Migration } from "kysely";

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    insert into subscription_periods (realm_id, user_id, stream_id, first_message_id, last_message_id)
    select s.realm_id, s.user_id, s.stream_id, (select coalesce(max(m.id), 0) + 1 from messages m), null
    from subscriptions s
    where s.active = 1
      and not exists (
        select 1 from subscription_periods p
        where p.user_id = s.user_id and p.stream_id = s.stream_id and p.last_message_id is null
      )
  `.execute(db);
}

/** Migration 0004: the backfill of subscription periods. */
export function subscriptionPeriodsBackfill(): Migration {
  return { up };
}
