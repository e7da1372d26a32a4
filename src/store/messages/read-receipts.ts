/** Who read a message, for its read receipts (Zulip's query in zerver/views/read_receipts.py). */
import { sql, type SqlBool } from "kysely";
import type { Db } from "../schema/types.ts";
import { MESSAGE_FLAG, type MessageRow, type UserRow } from "../schema/database.ts";

/**
 * Active users whose flags mark the message read, ascending, without its sender and without
 * users who muted `viewerId` or whom `viewerId` muted. A reader always holds a flag row (only a
 * message's sender has it read by default), historical rows included as in Zulip. Each
 * reader's send_read_receipts setting is for the caller to apply.
 */
export function messageReaders(db: Db, realmId: number, message: Pick<MessageRow, "id" | "sender_id">, viewerId: number): Promise<UserRow[]> {
  return db
    .selectFrom("user_message_flags as f")
    .innerJoin("users as u", "u.id", "f.user_id")
    .selectAll("u")
    .where("f.message_id", "=", message.id)
    .where(sql<SqlBool>`(f.flags & ${MESSAGE_FLAG.read}) <> 0`)
    .where("f.user_id", "<>", message.sender_id)
    .where("u.realm_id", "=", realmId)
    .where("u.is_active", "=", 1)
    .where(
      sql<SqlBool>`not exists (select 1 from muted_users mu where mu.realm_id = ${realmId}
        and ((mu.user_id = f.user_id and mu.muted_user_id = ${viewerId}) or (mu.user_id = ${viewerId} and mu.muted_user_id = f.user_id)))`,
    )
    .orderBy("u.id")
    .execute();
}
