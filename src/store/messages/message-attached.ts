/**
 * PostgreSQL: a page of messages read together with each message's reactions and submessages (as
 * JSON arrays in two more columns), so GET /messages takes one statement where it took three in
 * two round trips. SQLite answers in-process and keeps the separate reads of message-lookups.ts.
 */
import { sql, type SelectQueryBuilder } from "kysely";
import type { Database, ReactionRow } from "../schema/database.ts";
import type { SubmessageRow } from "./submessages.ts";

/** The columns withAttachedRows adds. */
export type AttachedColumns = { reactions_json: ReactionRow[]; submessages_json: SubmessageRow[] };

/** A page's reactions and submessages, each list in id order (as reactionsOfMessages and submessagesOfMessages give them). */
export type AttachedRows = { reactions: ReactionRow[]; submessages: SubmessageRow[] };

/** Widens a query over `messages` with each message's reactions and submessages (PostgreSQL only). */
export function withAttachedRows<O>(query: SelectQueryBuilder<Database, "messages", O>): SelectQueryBuilder<Database, "messages", O & AttachedColumns> {
  return query.select([
    sql<ReactionRow[]>`(select coalesce(json_agg(r order by r.id), '[]') from reactions r where r.realm_id = messages.realm_id and r.message_id = messages.id)`.as("reactions_json"),
    sql<SubmessageRow[]>`(select coalesce(json_agg(s order by s.id), '[]') from submessages s where s.message_id = messages.id)`.as("submessages_json"),
  ]);
}

/** Takes the attached columns off rows read through withAttachedRows: the rows without them, and the lists. */
export function splitAttachedRows<R extends AttachedColumns>(found: readonly R[]): { rows: Array<Omit<R, keyof AttachedColumns>>; attached: AttachedRows } {
  const rows: Array<Omit<R, keyof AttachedColumns>> = [];
  const reactions: ReactionRow[] = [];
  const submessages: SubmessageRow[] = [];
  for (const { reactions_json, submessages_json, ...row } of found) {
    rows.push(row);
    reactions.push(...reactions_json);
    submessages.push(...submessages_json);
  }
  reactions.sort((a, b) => a.id - b.id);
  submessages.sort((a, b) => a.id - b.id);
  return { rows, attached: { reactions, submessages } };
}
