/**
 * PostgreSQL only: whether a channel topic holds a message, asked on every send (automatic topic
 * visibility on initiation). As a plain EXISTS in a prepared statement, PostgreSQL's generic plan
 * assumes every topic is as large as the average one and so expects a match within a few rows:
 * without table statistics it collected the whole topic through a bitmap (milliseconds in a topic
 * of 40,000 messages, growing with it), and with statistics, given an `id <` bound, it scanned the
 * table in id order for a new topic (40 ms at 200,000 messages). Two functions pin the plan:
 * - `parley_topic_has_messages(realm, stream, lowered topic)`, the send's: sequential and bitmap
 *   scans off. With no id bound and no order, no index but the (stream, lower(topic), id) one and
 *   the (stream, id) one has a condition to use, so even the generic plan reads the first and
 *   stops at the first entry: a few µs whatever the topic's size, with or without statistics.
 * - `parley_topic_has_messages(realm, stream, lowered topic, before id)`, for a message already
 *   stored: the id bound would make the primary key a candidate again, so its query is planned
 *   for each call's values (about 20 µs).
 * Being STABLE, they read the calling statement's snapshot: within the insert that calls one, it
 * does not see that insert's own message.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { Engine } from "../schema/types.ts";

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== "postgres") return;
  await sql`
    create or replace function parley_topic_has_messages(p_realm integer, p_stream integer, p_topic text)
    returns boolean language plpgsql stable
    set enable_seqscan = off set enable_bitmapscan = off
    as $$
    begin
      return exists (select 1 from messages where stream_id = p_stream and lower(topic) = p_topic and realm_id = p_realm);
    end $$`.execute(db);
  await sql`
    create or replace function parley_topic_has_messages(p_realm integer, p_stream integer, p_topic text, p_before integer)
    returns boolean language plpgsql stable
    set plan_cache_mode = force_custom_plan set enable_seqscan = off set enable_bitmapscan = off
    as $$
    begin
      return exists (select 1 from messages where stream_id = p_stream and lower(topic) = p_topic and id < p_before and realm_id = p_realm);
    end $$`.execute(db);
}

/** Migration 0027: the topic-existence functions of the send path (PostgreSQL). */
export function topicExistsFunctionMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}
