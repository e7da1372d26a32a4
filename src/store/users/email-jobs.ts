/** What waits in the outgoing email queue (email_jobs; store/users/invites.ts writes it). */
import { valueChunks } from "../engine/chunks.ts";
import type { Db } from "../schema/types.ts";

/** How many emails to these addresses still wait to be sent (neither sent nor given up on). */
export async function countEmailJobsTo(db: Db, realmId: number, addresses: readonly string[]): Promise<number> {
  let total = 0;
  for (const chunk of valueChunks(addresses)) {
    const row = await db
      .selectFrom("email_jobs")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("realm_id", "=", realmId)
      .where("to_address", "in", chunk)
      .executeTakeFirst();
    total += Number(row?.n ?? 0);
  }
  return total;
}
