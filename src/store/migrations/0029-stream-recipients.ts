/**
 * Every channel has its recipient row from its creation (store/channels/streams.ts insertStream), so a
 * channel send can be checked with reads alone, before its write transaction
 * (actions/messages/send.ts). Channels made before then got theirs at their first message; this
 * gives one to each that has none yet.
 */
import { sql, type Kysely, type Migration } from "kysely";
import { RECIPIENT_TYPE } from "../schema/database.ts";

async function up(db: Kysely<unknown>): Promise<void> {
  const stream = sql.lit(RECIPIENT_TYPE.stream);
  await sql`
    insert into recipients (realm_id, type, type_id)
    select s.realm_id, ${stream}, s.id from streams s
    where not exists (select 1 from recipients r where r.type = ${stream} and r.type_id = s.id)`.execute(db);
}

/** Migration 0029: a recipient row for every channel. */
export function streamRecipientsMigration(): Migration {
  return { up };
}
