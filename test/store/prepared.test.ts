/**
 * Prepared queries (store/engine/prepared.ts) against their dynamic twins. A prepared query freezes the
 * SQL its builder made once with placeholders; its twin is the same builder run with the real
 * values, as Kysely runs any query. For every registered prepared query, on each store and with
 * several parameter sets (zero, empty and null ones among them), both must compile to the same
 * SQL with the same bound parameters and give the same rows: a builder whose SQL depends on a
 * value (a `??` default, a branch, a transformed value) fails here. A prepared query without a
 * case here fails too. Placeholders used as values throw.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql, type CompiledQuery } from "kysely";
import { migrate, openStore, type Store } from "../../src/store/db.ts";
import type { Database } from "../../src/store/schema/database.ts";
import type { Db } from "../../src/store/schema/types.ts";
import { MESSAGE_FLAG, RECIPIENT_TYPE } from "../../src/store/schema/database.ts";
import { Placeholder, PlaceholderUsedAsValueError, prepared, preparedQueries, type Placeholders, type PreparedQuery } from "../../src/store/engine/prepared.ts";
import { createFixtures, type Fixtures } from "../helpers/fixtures.ts";
import { freshStore, STORES, type FreshStore, type StoreKind } from "../helpers/stores.ts";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src");

/** Every source file that defines a prepared query, wherever it lives. */
function preparingModules(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return preparingModules(full);
    return entry.name.endsWith(".ts") && /\bprepared\(/.test(fs.readFileSync(full, "utf8")) ? [full] : [];
  });
}

for (const file of preparingModules(SRC)) await import(pathToFileURL(file).href);
/** The application's prepared queries (taken before the tests below register their own). */
const REGISTERED = preparedQueries();

type Values = Record<string, unknown>;

/** What the cases read from the seeded store. */
type Seed = {
  fx: Fixtures;
  engine: StoreKind;
  streamA: number;
  streamB: number;
  recipientA: number;
  /** Messages of stream A: two in topic "Lunch", one in "other". */
  lunch1: number;
  lunch2: number;
  other: number;
  /** Ids of system groups by name ("role:members", ...). */
  groups: Map<string, number>;
  /** A member deactivated after joining (still in their groups and subscriptions). */
  gone: number;
};

/**
 * A prepared query's case: its parameter sets, and for a write, what to read back (the write
 * runs in a transaction rolled back after the read, so prepared query and twin see the same store).
 */
type Case = {
  engines?: StoreKind[];
  params: (s: Seed) => Values[];
  readBack?: (db: Db, rows: unknown[], values: Values) => Promise<unknown>;
};

const newMessage = (s: Seed, over: Values): Values => ({
  realm_id: s.fx.realmId, sender_id: s.fx.member.id, recipient_id: s.recipientA, stream_id: s.streamA, topic: "Lunch", content: "soup",
  rendered_content: "<p>soup</p>", date_sent: 1_700_000_000, sending_client: "test", last_edit_time: null, last_moved_time: null,
  edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0, stream_wildcard_mention: 0, ...over,
});

/** The row an insert returning `id` wrote, without the id (sequences differ between runs). */
const insertedMessage = async (db: Db, rows: unknown[]) => {
  const [{ id }] = rows as Array<{ id: number }>;
  const { id: _, ...row } = await db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  return row;
};

const CASES: Record<string, Case> = {
  userByApiKey: { params: (s) => [{ apiKey: s.fx.member.apiKey }, { apiKey: s.fx.bot.apiKey }, { apiKey: "" }, { apiKey: "no such key" }] },
  realm: { params: (s) => [{ realmId: s.fx.realmId }, { realmId: 0 }] },
  sessionUser: { params: () => [{ keyHash: "" }, { keyHash: "no such session" }] },
  streamById: {
    params: (s) => [{ realmId: s.fx.realmId, streamId: s.streamA }, { realmId: s.fx.realmId, streamId: s.streamB }, { realmId: 0, streamId: s.streamA }, { realmId: s.fx.realmId, streamId: 0 }],
  },
  streamByName: {
    params: (s) => [{ realmId: s.fx.realmId, name: "A" }, { realmId: s.fx.realmId, name: "a" }, { realmId: s.fx.realmId, name: "" }, { realmId: 0, name: "A" }],
  },
  linkifiers: { params: (s) => [{ realmId: s.fx.realmId }, { realmId: 0 }] },
  subscription: {
    params: (s) => [
      { realmId: s.fx.realmId, userId: s.fx.member.id, streamId: s.streamA },
      { realmId: s.fx.realmId, userId: s.fx.owner.id, streamId: s.streamA },
      { realmId: s.fx.realmId, userId: s.fx.member.id, streamId: s.streamB },
      { realmId: 0, userId: 0, streamId: 0 },
    ],
  },
  subscriberIds: { params: (s) => [{ realmId: s.fx.realmId, streamId: s.streamA }, { realmId: s.fx.realmId, streamId: s.streamB }, { realmId: 0, streamId: 0 }] },
  userTopic: {
    params: (s) => [
      { realmId: s.fx.realmId, userId: s.fx.member.id, streamId: s.streamA, loweredTopic: "lunch" },
      { realmId: s.fx.realmId, userId: s.fx.member.id, streamId: s.streamA, loweredTopic: "Lunch" },
      { realmId: s.fx.realmId, userId: s.fx.member.id, streamId: s.streamA, loweredTopic: "" },
      { realmId: s.fx.realmId, userId: s.fx.admin.id, streamId: s.streamA, loweredTopic: "lunch" },
    ],
  },
  streamRecipient: { params: (s) => [{ realmId: s.fx.realmId, streamId: s.streamA }, { realmId: s.fx.realmId, streamId: s.streamB }, { realmId: 0, streamId: 0 }] },
  earlierTopicMessage: {
    params: (s) => [
      { realmId: s.fx.realmId, streamId: s.streamA, loweredTopic: "lunch", beforeId: s.lunch2 },
      { realmId: s.fx.realmId, streamId: s.streamA, loweredTopic: "lunch", beforeId: s.lunch1 },
      { realmId: s.fx.realmId, streamId: s.streamA, loweredTopic: "", beforeId: s.other + 1 },
      { realmId: s.fx.realmId, streamId: s.streamA, loweredTopic: "other", beforeId: 0 },
    ],
  },
  pgEarlierTopicMessage: {
    engines: ["postgres"],
    params: (s) => [
      { realmId: s.fx.realmId, streamId: s.streamA, loweredTopic: "lunch", beforeId: s.lunch2 },
      { realmId: s.fx.realmId, streamId: s.streamA, loweredTopic: "lunch", beforeId: s.lunch1 },
      { realmId: s.fx.realmId, streamId: s.streamA, loweredTopic: "other", beforeId: 0 },
      { realmId: 0, streamId: s.streamA, loweredTopic: "lunch", beforeId: s.lunch2 },
    ],
  },
  userInGroup: {
    params: (s) => {
      const members = s.groups.get("role:members");
      const admins = s.groups.get("role:administrators");
      return [
        { groupId: members, userId: s.fx.member.id },
        { groupId: members, userId: s.fx.owner.id },
        { groupId: members, userId: s.fx.guest.id },
        { groupId: members, userId: s.gone },
        { groupId: admins, userId: s.fx.member.id },
        { groupId: 0, userId: 0 },
      ];
    },
  },
  insertMessage: {
    params: (s) => [
      newMessage(s, {}),
      newMessage(s, { topic: "", content: "", rendered_content: "", last_edit_time: 0, last_moved_time: 1, edit_history: "[]", has_link: 1 }),
      newMessage(s, { stream_id: null, is_me_message: 1, stream_wildcard_mention: 1 }),
    ],
    readBack: insertedMessage,
  },
  insertIndexedMessage: {
    engines: ["postgres"],
    params: (s) => [newMessage(s, { search_tsv: "'lunch':1 'soup':3" }), newMessage(s, { topic: "", content: "", rendered_content: "", search_tsv: "" })],
    readBack: insertedMessage,
  },
  insertMessageWithFlag: {
    engines: ["postgres"],
    params: (s) => [
      // topic_had_messages: a topic with messages, one without, and a direct message.
      newMessage(s, { search_tsv: "'lunch':1 'soup':3", flag_user_id: s.fx.member.id, flags: 1, lowered_topic: "lunch" }),
      newMessage(s, { topic: "Fresh", content: "", rendered_content: "", search_tsv: "", flag_user_id: s.fx.owner.id, flags: 0, lowered_topic: "fresh" }),
      newMessage(s, { stream_id: null, topic: "", search_tsv: "", flag_user_id: s.fx.owner.id, flags: 0, lowered_topic: "" }),
    ],
    readBack: async (db, rows) => {
      const message = await insertedMessage(db, rows);
      const [{ id, topic_had_messages, sender_topic_policy }] = rows as Array<{ id: number; topic_had_messages: boolean; sender_topic_policy: number | null }>;
      const flags = await db.selectFrom("user_message_flags").select(["user_id", "flags"]).where("message_id", "=", id).execute();
      return { message, flags, topic_had_messages, sender_topic_policy };
    },
  },
  insertMessageRows: {
    engines: ["postgres"],
    params: (s) => {
      // One array per column: two channel messages (a topic with messages, a new one) and a direct one.
      const rows = [
        newMessage(s, { search_tsv: "'lunch':1 'soup':3", flag_user_id: s.fx.member.id, flags: 1, lowered_topic: "lunch" }),
        newMessage(s, { topic: "Fresh", content: "", rendered_content: "", last_edit_time: 5, edit_history: "[]", search_tsv: "", flag_user_id: s.fx.owner.id, flags: 0, lowered_topic: "fresh" }),
        newMessage(s, { stream_id: null, topic: "", search_tsv: "", flag_user_id: s.fx.owner.id, flags: 0, lowered_topic: "" }),
      ];
      const columns = (list: Values[]) => ({
        realm_ids: list.map((r) => r.realm_id), sender_ids: list.map((r) => r.sender_id), recipient_ids: list.map((r) => r.recipient_id),
        stream_ids: list.map((r) => r.stream_id), topics: list.map((r) => r.topic), contents: list.map((r) => r.content),
        rendered_contents: list.map((r) => r.rendered_content), dates_sent: list.map((r) => r.date_sent), sending_clients: list.map((r) => r.sending_client),
        last_edit_times: list.map((r) => r.last_edit_time), last_moved_times: list.map((r) => r.last_moved_time), edit_histories: list.map((r) => r.edit_history),
        is_me_messages: list.map((r) => r.is_me_message), has_links: list.map((r) => r.has_link), has_images: list.map((r) => r.has_image),
        has_attachments: list.map((r) => r.has_attachment), stream_wildcard_mentions: list.map((r) => r.stream_wildcard_mention),
        search_tsvs: list.map((r) => r.search_tsv), flag_user_ids: list.map((r) => r.flag_user_id), flags: list.map((r) => r.flags),
        lowered_topics: list.map((r) => r.lowered_topic),
      });
      return [columns(rows), columns(rows.slice(1, 2))];
    },
    readBack: async (db, rows) => {
      const told = rows as Array<{ id: number; topic_had_messages: boolean; sender_topic_policy: number | null }>;
      const ids = told.map((r) => r.id);
      const messages = await db.selectFrom("messages").selectAll().where("id", "in", ids).orderBy("id").execute();
      const flags = await db.selectFrom("user_message_flags").select(["message_id", "user_id", "flags"]).where("message_id", "in", ids).orderBy("message_id").execute();
      const vectors = await sql<{ v: string }>`select search_tsv::text as v from messages where id in (${sql.join(ids)}) order by id`.execute(db);
      // Ids differ between runs; their order and each row's place do not.
      const place = (id: number) => ids.indexOf(id);
      return {
        ascending: ids.every((id, k) => k === 0 || id > ids[k - 1]),
        told: told.map((r) => [r.topic_had_messages, r.sender_topic_policy]),
        messages: messages.map(({ id, ...row }) => ({ place: place(id), ...row })),
        flags: flags.map(({ message_id, ...row }) => ({ place: place(message_id), ...row })),
        vectors: vectors.rows.map((r) => r.v),
      };
    },
  },
  insertFlagRow: {
    params: (s) => [
      { userId: s.fx.member.id, messageId: s.lunch1, flags: 0 },
      { userId: s.fx.admin.id, messageId: s.other, flags: 3 },
    ],
    readBack: (db, _rows, values) =>
      db.selectFrom("user_message_flags").selectAll().where("message_id", "=", Number(values.messageId)).orderBy("user_id").execute(),
  },
  subscribedStoredUnread: {
    params: (s) => [
      { realmId: s.fx.realmId, userId: s.fx.admin.id, limit: 10 },
      { realmId: s.fx.realmId, userId: s.fx.admin.id, limit: 0 },
      { realmId: s.fx.realmId, userId: s.fx.member.id, limit: 10 },
      { realmId: 0, userId: s.fx.admin.id, limit: 10 },
    ],
  },
  snapshotDefaultUnread: {
    params: (s) => [
      { realmId: s.fx.realmId, userId: s.fx.admin.id, afterId: 0, limit: 10 },
      { realmId: s.fx.realmId, userId: s.fx.admin.id, afterId: s.other, limit: 10 },
      { realmId: s.fx.realmId, userId: s.fx.member.id, afterId: 0, limit: 10 },
      { realmId: s.fx.realmId, userId: s.fx.owner.id, afterId: 0, limit: 10 },
    ],
  },
  newestReceived: {
    params: (s) => [
      { realmId: s.fx.realmId, userId: s.fx.admin.id },
      { realmId: s.fx.realmId, userId: s.fx.member.id },
      { realmId: s.fx.realmId, userId: s.fx.owner.id },
      { realmId: 0, userId: 0 },
    ],
  },
  undeliveredScheduledMessages: {
    params: (s) => [
      { realmId: s.fx.realmId, senderId: s.fx.member.id, type: 1 },
      { realmId: s.fx.realmId, senderId: s.fx.member.id, type: 2 },
      { realmId: s.fx.realmId, senderId: s.fx.admin.id, type: 1 },
      { realmId: 0, senderId: s.fx.member.id, type: 1 },
    ],
  },
  newestMessageId: { params: () => [{}] },
  unreadWatermark: { params: (s) => [{ userId: s.fx.admin.id }, { userId: s.fx.member.id }, { userId: 0 }] },
  starredMessageIds: {
    params: (s) => [
      { realmId: s.fx.realmId, userId: s.fx.admin.id },
      { realmId: s.fx.realmId, userId: s.fx.member.id },
      { realmId: 0, userId: s.fx.admin.id },
    ],
  },
  userPresence: { params: (s) => [{ realmId: s.fx.realmId, userId: s.fx.member.id }, { realmId: 0, userId: 0 }] },
  nextPresenceUpdateId: {
    params: (s) => [{ realmId: s.fx.realmId }, { realmId: s.fx.realmId }],
    readBack: (db) => db.selectFrom("presence_sequence").selectAll().orderBy("realm_id").execute(),
  },
  upsertPresence: {
    params: (s) => [
      { user_id: s.fx.member.id, realm_id: s.fx.realmId, last_active_time: null, last_connected_time: 1_700_000_000, last_update_id: 7 },
      { user_id: s.fx.admin.id, realm_id: s.fx.realmId, last_active_time: 0, last_connected_time: 0, last_update_id: 0 },
    ],
    readBack: (db) => db.selectFrom("user_presence").selectAll().orderBy("user_id").execute(),
  },
  putPresenceNumbered: {
    engines: ["postgres"],
    params: (s) => [
      { user_id: s.fx.member.id, realm_id: s.fx.realmId, last_active_time: 1_700_000_000, last_connected_time: 1_700_000_000 },
      { user_id: s.fx.admin.id, realm_id: s.fx.realmId, last_active_time: null, last_connected_time: 0 },
    ],
    readBack: (db) => db.selectFrom("user_presence").selectAll().orderBy("user_id").execute(),
  },
  indexOne: {
    engines: ["sqlite"],
    params: (s) => [
      { id: s.lunch1, topic: "lunch", content: "soup today" },
      { id: s.other, topic: "", content: "" },
    ],
    readBack: async (db, _rows, values) => {
      const hits = await sql<{ rowid: number }>`select rowid from message_search where message_search match ${"lunch OR soup"} order by rowid`.execute(db);
      return { hits: hits.rows, id: values.id };
    },
  },
};

/** The builder run with the values where it asks for placeholders: Kysely binds either the same way. */
function twin(entry: PreparedQuery, db: Db, values: Values): CompiledQuery<unknown> {
  const built = entry.build(db, (name) => values[name] as Placeholder<unknown>);
  return "isRawBuilder" in built ? built.compile(db) : built.compile();
}

/** The frozen query with `values` bound, against the twin: same SQL, same parameters. */
function assertSameQuery(entry: PreparedQuery, db: Db, values: Values): CompiledQuery<unknown> {
  const frozen = entry.bind(db, values);
  const dynamic = twin(entry, db, values);
  const what = `${entry.name} with ${JSON.stringify(values)}`;
  assert.equal(frozen.sql, dynamic.sql, `${what}: SQL`);
  assert.deepEqual(frozen.parameters, dynamic.parameters, `${what}: parameters`);
  return dynamic;
}

class Rollback extends Error {}

/** Runs `fn` in a transaction and rolls it back, returning what `fn` returned. */
async function rolledBack<T>(db: Kysely<Database>, fn: (tx: Db) => Promise<T>): Promise<T> {
  let out: { value: T } | undefined;
  await db
    .transaction()
    .execute(async (tx) => {
      out = { value: await fn(tx) };
      throw new Rollback();
    })
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
  if (!out) throw new Error("transaction did not run");
  return out.value;
}

async function seed(db: Kysely<Database>, engine: StoreKind, fx: Fixtures): Promise<Seed> {
  const realmId = fx.realmId;
  const groupRows = await db.selectFrom("user_groups").select(["id", "name"]).where("realm_id", "=", realmId).where("is_system_group", "=", 1).execute();
  const groups = new Map(groupRows.map((g) => [g.name ?? "", g.id]));
  const anyGroup = groupRows[0].id;
  const stream = (name: string) =>
    db
      .insertInto("streams")
      .values({
        realm_id: realmId, name, description: "", rendered_description: "", invite_only: 0, is_web_public: 0, history_public_to_subscribers: 1,
        message_retention_days: null, date_created: 0, creator_id: null, is_archived: 0, first_message_id: null,
        can_administer_channel_group_id: anyGroup, can_send_message_group_id: anyGroup, can_add_subscribers_group_id: anyGroup,
        can_remove_subscribers_group_id: anyGroup, can_subscribe_group_id: anyGroup, can_delete_any_message_group_id: anyGroup,
        can_delete_own_message_group_id: anyGroup, can_move_messages_out_of_channel_group_id: anyGroup,
        can_move_messages_within_channel_group_id: anyGroup, can_resolve_topics_group_id: anyGroup,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
  const streamA = (await stream("A")).id;
  const streamB = (await stream("B")).id;
  const recipientA = (await db.insertInto("recipients").values({ realm_id: realmId, type: RECIPIENT_TYPE.stream, type_id: streamA }).returning("id").executeTakeFirstOrThrow()).id;
  const gone = (await db.selectFrom("users").select("id").where("realm_id", "=", realmId).where("delivery_email", "=", "moderator@example.com").executeTakeFirstOrThrow()).id;
  const subscribe = (userId: number, active: 0 | 1) =>
    db
      .insertInto("subscriptions")
      .values({
        realm_id: realmId, user_id: userId, stream_id: streamA, active, is_muted: 0, color: "#ffffff", pin_to_top: 0, desktop_notifications: null,
        audible_notifications: null, push_notifications: 1, email_notifications: null, wildcard_mentions_notify: null,
      })
      .execute();
  await subscribe(fx.member.id, 1);
  await subscribe(fx.admin.id, 1);
  await subscribe(fx.bot.id, 1);
  await subscribe(gone, 1);
  await subscribe(fx.owner.id, 0);
  await db.updateTable("users").set({ is_active: 0 }).where("id", "=", gone).execute();
  await db.updateTable("subscriptions").set({ is_user_active: 0 }).where("user_id", "=", gone).execute();
  const message = async (topic: string) => {
    const row = await db
      .insertInto("messages")
      .values({
        realm_id: realmId, sender_id: fx.member.id, recipient_id: recipientA, stream_id: streamA, topic, content: "x", rendered_content: "<p>x</p>",
        date_sent: 0, sending_client: "test", last_edit_time: null, last_moved_time: null, edit_history: null, is_me_message: 0, has_link: 0,
        has_image: 0, has_attachment: 0, stream_wildcard_mention: 0,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  };
  const lunch1 = await message("Lunch");
  const lunch2 = await message("LUNCH");
  const other = await message("other");
  await db
    .insertInto("user_topics")
    .values({ realm_id: realmId, user_id: fx.member.id, stream_id: streamA, topic: "Lunch", visibility_policy: 1, last_updated: 0 })
    .execute();
  await db.insertInto("unread_watermarks").values({ user_id: fx.admin.id, message_id: lunch1 }).execute();
  await db
    .insertInto("scheduled_messages")
    .values({
      realm_id: realmId, sender_id: fx.member.id, recipient_id: recipientA, stream_id: streamA, topic: "later", content: "x", rendered_content: "<p>x</p>",
      sending_client: "test", scheduled_timestamp: 1_800_000_000, read_by_sender: 1, has_attachment: 0, reminder_target_message_id: null, reminder_note: null,
    })
    .execute();
  // The admin receives streamA's messages, has read the first, and left the second unread with a row (the third has none);
  // the owner's period closed after the first.
  await db
    .insertInto("subscription_periods")
    .values([
      { realm_id: realmId, user_id: fx.admin.id, stream_id: streamA, first_message_id: lunch1, last_message_id: null },
      { realm_id: realmId, user_id: fx.owner.id, stream_id: streamA, first_message_id: lunch1, last_message_id: lunch1 },
    ])
    .execute();
  await db
    .insertInto("user_message_flags")
    .values([
      { user_id: fx.admin.id, message_id: lunch1, flags: MESSAGE_FLAG.read | MESSAGE_FLAG.starred },
      { user_id: fx.admin.id, message_id: lunch2, flags: 0 },
    ])
    .execute();
  await db
    .insertInto("linkifiers")
    .values([
      { realm_id: realmId, pattern: "#(?P<id>[0-9]+)", url_template: "https://example.com/{id}", order: 2 },
      { realm_id: realmId, pattern: "PR(?P<id>[0-9]+)", url_template: "https://example.com/pr/{id}", order: 1 },
    ])
    .execute();
  return { fx, engine, streamA, streamB, recipientA, lunch1, lunch2, other, groups, gone };
}

describe("prepared query registry", () => {
  test("every prepared query has a twin case, and every case a prepared query", () => {
    assert.deepEqual(REGISTERED.map((q) => q.name).sort(), Object.keys(CASES).sort());
  });
});

for (const kind of STORES) {
  describe(`prepared queries against their dynamic twins [${kind}]`, () => {
    let fresh: FreshStore;
    let store: Store;
    let s: Seed;
    before(async () => {
      fresh = await freshStore(kind);
      const fx = await createFixtures(fresh);
      store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
      await migrate(store);
      s = await seed(store.db, kind, fx);
    });
    after(async () => {
      await store?.close();
      await fresh?.drop();
    });

    for (const entry of REGISTERED) {
      const c = CASES[entry.name];
      if (!c || (c.engines && !c.engines.includes(kind))) continue;
      test(entry.name, async () => {
        for (const values of c.params(s)) {
          const readBack = c.readBack;
          if (readBack) {
            const frozen = await rolledBack(store.db, async (tx) => readBack(tx, await entry.run(tx, values), values));
            const dynamic = await rolledBack(store.db, async (tx) => readBack(tx, (await tx.executeQuery(assertSameQuery(entry, tx, values))).rows, values));
            assert.deepEqual(frozen, dynamic, `${entry.name} with ${JSON.stringify(values)}: rows written`);
          } else {
            const dynamic = assertSameQuery(entry, store.db, values);
            const frozenRows = await entry.run(store.db, values);
            assert.deepEqual(frozenRows, (await store.db.executeQuery(dynamic)).rows, `${entry.name} with ${JSON.stringify(values)}: rows`);
          }
        }
      });
    }

    test("the cases find rows, so that equal results mean something", async () => {
      const found = async (name: string, values: Values) => (await REGISTERED.find((q) => q.name === name)?.run(store.db, values))?.length ?? 0;
      assert.equal(await found("userByApiKey", { apiKey: s.fx.member.apiKey }), 1);
      assert.equal(await found("userTopic", { realmId: s.fx.realmId, userId: s.fx.member.id, streamId: s.streamA, loweredTopic: "lunch" }), 1);
      assert.equal(await found("earlierTopicMessage", { realmId: s.fx.realmId, streamId: s.streamA, loweredTopic: "lunch", beforeId: s.lunch2 }), 1);
      assert.equal(await found("userInGroup", { groupId: s.groups.get("role:members"), userId: s.fx.owner.id }), 1);
      assert.equal(await found("userInGroup", { groupId: s.groups.get("role:members"), userId: s.gone }), 0);
      assert.equal(await found("linkifiers", { realmId: s.fx.realmId }), 2);
      const rows = async (name: string, values: Values) => (await REGISTERED.find((q) => q.name === name)?.run(store.db, values)) as Array<Record<string, unknown>>;
      const ids = async (name: string, values: Values) => (await rows(name, values)).map((r) => r.id);
      const admin = { realmId: s.fx.realmId, userId: s.fx.admin.id, limit: 10 };
      assert.deepEqual(await ids("subscribedStoredUnread", admin), [s.lunch2]);
      assert.deepEqual(await ids("snapshotDefaultUnread", { ...admin, afterId: 0 }), [s.other]);
      assert.deepEqual(await ids("snapshotDefaultUnread", { ...admin, userId: s.fx.owner.id, afterId: 0 }), [], "an unsubscribed user's closed period");
      assert.deepEqual((await rows("starredMessageIds", { realmId: s.fx.realmId, userId: s.fx.admin.id })).map((r) => r.message_id), [s.lunch1]);
      assert.deepEqual((await rows("unreadWatermark", { userId: s.fx.admin.id })).map((r) => r.message_id), [s.lunch1]);
      assert.equal(await found("undeliveredScheduledMessages", { realmId: s.fx.realmId, senderId: s.fx.member.id, type: 1 }), 1);
      const [newest] = await rows("newestReceived", { realmId: s.fx.realmId, userId: s.fx.admin.id });
      assert.deepEqual({ ...newest }, { sent: null, recent_channel: s.other, direct: null, flagged: s.lunch2 });
    });

    if (kind === "postgres") {
      test("the connections leave plan_cache_mode at its default: forcing generic plans would reach every unnamed statement too", async () => {
        const { rows } = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(store.db);
        assert.equal(rows[0].plan_cache_mode, "auto");
      });

      test("the topic function (migration 0027) answers as the plain query, and the send's insert tells it and the sender's policy", async () => {
        const ask = REGISTERED.find((q) => q.name === "pgEarlierTopicMessage");
        const plain = REGISTERED.find((q) => q.name === "earlierTopicMessage");
        for (const values of CASES.pgEarlierTopicMessage.params(s)) {
          const [row] = (await ask?.run(store.db, values)) as Array<{ found: boolean }>;
          assert.equal(row.found, ((await plain?.run(store.db, values))?.length ?? 0) > 0, JSON.stringify(values));
        }
        const insert = REGISTERED.find((q) => q.name === "insertMessageWithFlag");
        const told = [];
        for (const values of CASES.insertMessageWithFlag.params(s)) {
          const [row] = await rolledBack(store.db, async (tx) => (await insert?.run(tx, values)) as Array<{ topic_had_messages: boolean; sender_topic_policy: number | null }>);
          told.push([row.topic_had_messages, row.sender_topic_policy]);
        }
        // A topic with messages for which the sender set a policy, a new topic, a direct message.
        assert.deepEqual(told, [[true, 1], [false, null], [false, null]]);
        const rows = REGISTERED.find((q) => q.name === "insertMessageRows");
        const [threeRows] = CASES.insertMessageRows.params(s);
        const many = await rolledBack(store.db, async (tx) => (await rows?.run(tx, threeRows)) as Array<{ id: number; topic_had_messages: boolean; sender_topic_policy: number | null }>);
        assert.deepEqual(many.map((r) => [r.topic_had_messages, r.sender_topic_policy]), told, "the multi-row insert tells each row the same");
        assert.ok(many[0].id < many[1].id && many[1].id < many[2].id, "ids in the rows' order");
      });
    }
  });
}

describe("placeholders are not values", () => {
  /** A database that compiles SQLite's SQL and runs nothing: these queries fail before running. */
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  let counter = 0;
  /** Registers a misusing builder under a fresh name and returns its registry entry. */
  const misuse = <P extends Values>(build: (db: Db, param: Placeholders<P>) => ReturnType<PreparedQuery["build"]>) => {
    const name = `test: misuse ${++counter}`;
    const run = prepared<P, unknown>(name, build);
    const entry = preparedQueries().find((q) => q.name === name);
    assert.ok(entry);
    return { run, entry };
  };
  const users = (d: Db) => d.selectFrom("users").selectAll();

  test("template strings, String(), arithmetic and JSON throw while the query is built", async () => {
    const builders = [
      misuse((d, param: Placeholders<{ name: string }>) => users(d).where("full_name", "like", `${param("name")}%`)),
      misuse((d, param: Placeholders<{ name: string }>) => users(d).where("full_name", "=", String(param("name")))),
      // @ts-expect-error: a placeholder is no number
      misuse((d, param: Placeholders<{ id: number }>) => users(d).where("id", "=", param("id") + 1)),
      misuse((d, param: Placeholders<{ name: string }>) => users(d).where("settings", "=", JSON.stringify({ name: param("name") }))),
    ];
    for (const { run } of builders) await assert.rejects(run(db, { name: "x", id: 1 }), PlaceholderUsedAsValueError);
  });

  test("TypeScript refuses a placeholder where a value goes, and calls on it", async () => {
    // @ts-expect-error: a placeholder is no string
    const asValue = misuse((d, param: Placeholders<{ name: string }>) => users(d).where("full_name", "=", param("name").toLowerCase()));
    await assert.rejects(asValue.run(db, { name: "X" }), TypeError);
    misuse((d, param: Placeholders<{ name: string }>) => {
      // @ts-expect-error: a placeholder is no string
      const name: string = param("name");
      return users(d).where("full_name", "=", name);
    });
  });

  test("a branch that leaves a placeholder out of the SQL throws", async () => {
    const { run } = misuse((d, param: Placeholders<{ admin: boolean }>) => (param("admin") ? users(d).where("role", "=", 200) : users(d)));
    await assert.rejects(run(db, { admin: false }), /"admin" is not in the SQL/);
  });

  test("a branch or a ?? default that keeps its placeholder differs from its twin", () => {
    const branch = misuse((d, param: Placeholders<{ name: string }>) =>
      param("name") ? users(d).where("full_name", "=", param("name")) : users(d).where("full_name", "<>", param("name")),
    );
    assert.throws(() => assertSameQuery(branch.entry, db, { name: "" }), /SQL/);
    const fallback = misuse((d, param: Placeholders<{ botType: number | null }>) => users(d).where("bot_type", "=", param("botType") ?? 1));
    assertSameQuery(fallback.entry, db, { botType: 2 });
    assert.throws(() => assertSameQuery(fallback.entry, db, { botType: null }), /parameters/);
  });
});
