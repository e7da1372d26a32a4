/**
 * A write transaction's leading message insert, which the group committers run for it before the
 * rest of its work (`run.message` of a GroupCommitter). On PostgreSQL, consecutive transactions of
 * a batch that each lead with one insert share one statement: a batch of n channel sends is BEGIN,
 * one insert of n messages with their flag rows, and COMMIT, where it was n + 2 round trips.
 *
 * The n messages take their ids in the batch's order. What the insert tells each transaction
 * (whether its topic had messages, the sender's policy for it) is as of the transactions before
 * it in the batch: a message whose topic an earlier one of the statement holds had messages; and
 * when an earlier one's transaction may set its sender's policy for that topic (`topicPolicyUsers`),
 * its policy is left unknown, for the transaction to read once the earlier ones have run.
 */
import { sql } from "kysely";
import type { Db, Engine } from "../schema/types.ts";
import { searchVectorOf } from "./search-index.ts";
import { insertMessage, type InsertedMessage } from "./messages.ts";
import { prepared, type Placeholders } from "../engine/prepared.ts";
import type { MessageRow } from "../schema/database.ts";

/** A message to insert first in its transaction. */
export type MessageInsert = {
  row: Omit<MessageRow, "id">;
  /** Send-time flag rows: users whose flags differ from the default. */
  flags: ReadonlyMap<number, number>;
  /** Users whose visibility policy for the message's topic the rest of the transaction may set. */
  topicPolicyUsers: readonly number[];
  /** Called as the insert starts; the function it returns takes the new id (events/message-order.ts). */
  reserve?: () => (id: number) => void;
};

/**
 * Inserts the messages in order, each with its flag rows and search entry, and tells each what
 * insertMessage tells, as of the messages before it here (see the file's comment).
 */
export async function insertMessages(db: Db, engine: Engine, inserts: readonly MessageInsert[]): Promise<InsertedMessage[]> {
  const fills = inserts.map((insert) => insert.reserve?.());
  let out: InsertedMessage[];
  if (engine === "postgres" && inserts.length > 1 && inserts.every((insert) => insert.flags.size === 1)) {
    out = await insertInOneStatement(db, inserts);
  } else {
    out = [];
    for (const insert of inserts) out.push(await insertMessage(db, engine, insert.row, insert.flags));
  }
  out.forEach((inserted, k) => fills[k]?.(inserted.message.id));
  seeEarlierInserts(inserts, out);
  return out;
}

/** The channel topic a message is in, as a key (null for a direct message). */
function topicKey(row: MessageInsert["row"]): string | null {
  return row.stream_id === null ? null : `${row.stream_id}\0${row.topic.toLowerCase()}`;
}

/** Corrects what each insert told for the inserts before it (see the file's comment), in one pass. */
function seeEarlierInserts(inserts: readonly MessageInsert[], out: InsertedMessage[]): void {
  if (inserts.length < 2) return;
  // By topic: the users whose policy the transactions of the earlier inserts in it may set.
  const earlier = new Map<string, Set<number>>();
  inserts.forEach((insert, k) => {
    const key = topicKey(insert.row);
    if (key === null) return;
    const users = earlier.get(key);
    if (users === undefined) {
      earlier.set(key, new Set(insert.topicPolicyUsers));
      return;
    }
    if (out[k].topicHadMessages !== undefined) out[k].topicHadMessages = true;
    if (users.has(insert.row.sender_id)) out[k].senderTopicPolicy = undefined;
    for (const id of insert.topicPolicyUsers) users.add(id);
  });
}

/** A transaction's leading insert when it runs by itself (the committers' `run.message`), or undefined without one. */
export async function insertLeading(db: Db, engine: Engine, message: MessageInsert | undefined): Promise<InsertedMessage | undefined> {
  return message ? (await insertMessages(db, engine, [message]))[0] : undefined;
}

/** A message row without its id, as an insert takes it. */
type NewRow = MessageInsert["row"];

type Column<K extends keyof NewRow> = Array<NewRow[K]>;

/** The multi-row statement's parameters: one array per column. */
type RowsParams = {
  realm_ids: Column<"realm_id">; sender_ids: Column<"sender_id">; recipient_ids: Column<"recipient_id">; stream_ids: Column<"stream_id">;
  topics: Column<"topic">; contents: Column<"content">; rendered_contents: Column<"rendered_content">; dates_sent: Column<"date_sent">;
  sending_clients: Column<"sending_client">; last_edit_times: Column<"last_edit_time">; last_moved_times: Column<"last_moved_time">;
  edit_histories: Column<"edit_history">; is_me_messages: Column<"is_me_message">; has_links: Column<"has_link">; has_images: Column<"has_image">;
  has_attachments: Column<"has_attachment">; stream_wildcard_mentions: Column<"stream_wildcard_mention">;
  search_tsvs: string[]; flag_user_ids: number[]; flags: number[]; lowered_topics: string[];
};

async function insertInOneStatement(db: Db, inserts: readonly MessageInsert[]): Promise<InsertedMessage[]> {
  const rows = inserts.map((insert) => insert.row);
  const column = <K extends keyof NewRow>(key: K): Column<K> => rows.map((row) => row[key]);
  const flagRows = inserts.map((insert) => [...insert.flags][0]);
  const told = await insertMessageRowsQuery(db, {
    realm_ids: column("realm_id"), sender_ids: column("sender_id"), recipient_ids: column("recipient_id"), stream_ids: column("stream_id"),
    topics: column("topic"), contents: column("content"), rendered_contents: column("rendered_content"), dates_sent: column("date_sent"),
    sending_clients: column("sending_client"), last_edit_times: column("last_edit_time"), last_moved_times: column("last_moved_time"),
    edit_histories: column("edit_history"), is_me_messages: column("is_me_message"), has_links: column("has_link"), has_images: column("has_image"),
    has_attachments: column("has_attachment"), stream_wildcard_mentions: column("stream_wildcard_mention"),
    search_tsvs: rows.map((row) => searchVectorOf({ topic: row.topic, renderedContent: row.rendered_content })),
    flag_user_ids: flagRows.map(([userId]) => userId), flags: flagRows.map(([, flags]) => flags), lowered_topics: rows.map((row) => row.topic.toLowerCase()),
  });
  if (told.length !== rows.length) throw new Error(`inserting ${rows.length} messages answered ${told.length} rows`);
  // The id first: properties after a spread take V8's slow path (see actions/context.ts).
  return rows.map((row, k) => ({
    message: { id: told[k].id, ...row },
    topicHadMessages: Boolean(told[k].topic_had_messages),
    senderTopicPolicy: told[k].sender_topic_policy,
  }));
}

// PostgreSQL: the messages of a batch, each with its search vector and its one flag row, as
// insertMessageWithFlag (store/messages/messages.ts) writes one. Ids are drawn in the rows' order before
// the insert, so each answer row is known by its id; the answers come in the same order. The
// topic function and the policy subquery read the statement's snapshot, which holds none of its
// own messages: insertMessages adds what the earlier rows change.
const insertMessageRowsQuery = prepared("insertMessageRows", (_db, p: Placeholders<RowsParams>) =>
  sql<{ id: number; topic_had_messages: boolean; sender_topic_policy: number | null }>`
    with v as (
      select * from unnest(
        ${p("realm_ids")}::integer[], ${p("sender_ids")}::integer[], ${p("recipient_ids")}::integer[], ${p("stream_ids")}::integer[],
        ${p("topics")}::text[], ${p("contents")}::text[], ${p("rendered_contents")}::text[], ${p("dates_sent")}::bigint[],
        ${p("sending_clients")}::text[], ${p("last_edit_times")}::bigint[], ${p("last_moved_times")}::bigint[], ${p("edit_histories")}::text[],
        ${p("is_me_messages")}::integer[], ${p("has_links")}::integer[], ${p("has_images")}::integer[], ${p("has_attachments")}::integer[],
        ${p("stream_wildcard_mentions")}::integer[], ${p("search_tsvs")}::text[], ${p("flag_user_ids")}::integer[], ${p("flags")}::integer[],
        ${p("lowered_topics")}::text[]
      ) with ordinality as v(realm_id, sender_id, recipient_id, stream_id, topic, content, rendered_content, date_sent, sending_client,
        last_edit_time, last_moved_time, edit_history, is_me_message, has_link, has_image, has_attachment, stream_wildcard_mention,
        search_tsv, flag_user_id, flags, lowered_topic, ord)
    ), numbered as materialized (
      select nextval('messages_id_seq')::integer as id, v.* from v order by v.ord
    ), inserted as (
      insert into messages (id, realm_id, sender_id, recipient_id, stream_id, topic, content, rendered_content, date_sent, sending_client,
        last_edit_time, last_moved_time, edit_history, is_me_message, has_link, has_image, has_attachment, stream_wildcard_mention, search_tsv)
      select id, realm_id, sender_id, recipient_id, stream_id, topic, content, rendered_content, date_sent, sending_client,
        last_edit_time, last_moved_time, edit_history, is_me_message, has_link, has_image, has_attachment, stream_wildcard_mention, search_tsv::tsvector
      from numbered
    ), flagged as (
      insert into user_message_flags (user_id, message_id, flags) select flag_user_id, id, flags from numbered
    )
    select n.id, parley_topic_has_messages(n.realm_id, n.stream_id, n.lowered_topic) as topic_had_messages,
      (select visibility_policy from user_topics u
        where u.user_id = n.sender_id and u.stream_id = n.stream_id and lower(u.topic) = n.lowered_topic and u.realm_id = n.realm_id) as sender_topic_policy
    from numbered n order by n.ord`,
);

/**
 * The id the next message insert will draw: every lower one is committed, under way in some
 * transaction, or never to be used. PostgreSQL: the sequence the inserts draw from (named as
 * above); SQLite: AUTOINCREMENT's counter.
 */
export async function nextMessageId(db: Db, engine: Engine): Promise<number> {
  if (engine === "postgres") {
    const { rows } = await sql<{ last_value: string; is_called: boolean }>`select last_value, is_called from messages_id_seq`.execute(db);
    const [row] = rows;
    return row === undefined ? 1 : Number(row.last_value) + (row.is_called ? 1 : 0);
  }
  const { rows } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'messages'`.execute(db);
  return Number(rows[0]?.seq ?? 0) + 1;
}
