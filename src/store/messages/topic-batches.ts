/** Batches of a channel topic's messages, newest first, for deleting a topic a batch at a time. */
import { sql } from "kysely";
import type { Db } from "../schema/types.ts";
import { MESSAGE_COLUMNS, type MessageRow } from "../schema/database.ts";
import { receivedBySql } from "./message-flags.ts";

/**
 * Up to `limit` messages of a channel topic (case-insensitive), newest first; with a
 * `receiverId`, only the messages that user received (a channel whose history is not shared).
 */
export function newestTopicMessages(db: Db, realmId: number, streamId: number, topic: string, limit: number, receiverId: number | null): Promise<MessageRow[]> {
  let query = db.selectFrom("messages").select(MESSAGE_COLUMNS).where("realm_id", "=", realmId).where("stream_id", "=", streamId).where(sql<string>`lower(topic)`, "=", topic.toLowerCase());
  if (receiverId !== null) query = query.where(receivedBySql(receiverId));
  return query.orderBy("id", "desc").limit(limit).execute();
}
