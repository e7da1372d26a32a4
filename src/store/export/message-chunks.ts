/**
 * An export's reads of what grows with the messages, a chunk at a time by id: the organization's
 * messages after an id, and the flag rows, reactions and submessages of a range of message ids.
 * Memory follows the chunk size, never the history's length.
 */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { Database } from "../schema/database.ts";
import { collectChunks, idChunks } from "../engine/chunks.ts";

export type ExportMessage = Selectable<Database["messages"]>;

/** Up to `limit` of the organization's messages with an id above `afterId`, by id. */
export function messagesAfter(db: Db, realmId: number, afterId: number, limit: number): Promise<ExportMessage[]> {
  return db.selectFrom("messages").selectAll().where("realm_id", "=", realmId).where("id", ">", afterId).orderBy("id").limit(limit).execute();
}

/** The stored flag rows of the given messages. */
export function flagRowsOf(db: Db, messageIds: readonly number[]): Promise<Array<{ user_id: number; message_id: number; flags: number }>> {
  return collectChunks(idChunks([...messageIds]), (chunk) =>
    db.selectFrom("user_message_flags").select(["user_id", "message_id", "flags"]).where("message_id", "in", chunk).execute(),
  );
}

/** The reactions to the given messages, by id. */
export async function reactionsOf(db: Db, messageIds: readonly number[]): Promise<Array<Selectable<Database["reactions"]>>> {
  const rows = await collectChunks(idChunks([...messageIds]), (chunk) => db.selectFrom("reactions").selectAll().where("message_id", "in", chunk).execute());
  return rows.sort((a, b) => a.id - b.id);
}

/** The widget submessages of the given messages, by id. */
export async function submessagesOf(db: Db, messageIds: readonly number[]): Promise<Array<Selectable<Database["submessages"]>>> {
  const rows = await collectChunks(idChunks([...messageIds]), (chunk) => db.selectFrom("submessages").selectAll().where("message_id", "in", chunk).execute());
  return rows.sort((a, b) => a.id - b.id);
}

/** The given messages of the organization (an upload's links), by id. */
export async function messagesByIds(db: Db, realmId: number, ids: readonly number[]): Promise<ExportMessage[]> {
  const rows = await collectChunks(idChunks([...ids]), (chunk) => db.selectFrom("messages").selectAll().where("realm_id", "=", realmId).where("id", "in", chunk).execute());
  return rows.sort((a, b) => a.id - b.id);
}
