/**
 * What a digest email reads (Zulip's zerver/lib/digest.py): who is due one (inactive, not given
 * one lately), the channels whose history each saw whole since the cutoff, those channels'
 * messages since then, the channels created since, and how many messages a user received.
 */
import { sql } from "kysely";
import { collectChunks, eachChunk, idChunks, rowChunks } from "../engine/chunks.ts";
import { receivedBySql } from "../messages/message-flags.ts";
import type { RealmRow, StreamRow, UserRow } from "../schema/database.ts";
import type { Db } from "../schema/types.ts";

/** The organizations that are not deactivated. */
export function activeRealms(db: Db): Promise<RealmRow[]> {
  return db.selectFrom("realms").selectAll().where("deactivated", "=", 0).orderBy("id").execute();
}

/**
 * The realm's active human users with no "active" presence report after `activeAfter` and not
 * considered for a digest after `consideredAfter` (UNIX seconds), by id.
 */
export function digestCandidates(db: Db, realmId: number, activeAfter: number, consideredAfter: number): Promise<UserRow[]> {
  return db
    .selectFrom("users")
    .selectAll("users")
    .where("users.realm_id", "=", realmId)
    .where("users.is_active", "=", 1)
    .where("users.is_bot", "=", 0)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("user_presence as p").select("p.user_id").whereRef("p.user_id", "=", "users.id").where("p.last_active_time", ">", activeAfter))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("digest_emails as d").select("d.user_id").whereRef("d.user_id", "=", "users.id").where("d.last_digest_at", ">", consideredAfter))),
    )
    .orderBy("users.id")
    .execute();
}

/** The realm's newest message sent at or before `seconds`, or 0 when none was. */
export async function lastMessageIdAtOrBefore(db: Db, realmId: number, seconds: number): Promise<number> {
  const row = await db.selectFrom("messages").select("id").where("realm_id", "=", realmId).where("date_sent", "<=", seconds).orderBy("id", "desc").limit(1).executeTakeFirst();
  return row?.id ?? 0;
}

/**
 * Each user's unmuted channels they have received every message of from `fromId` on (their
 * current subscription began at or before it: Zulip leaves out channels whose subscription
 * changed since the cutoff), as user id -> channel ids.
 */
export async function digestChannels(db: Db, realmId: number, userIds: readonly number[], fromId: number): Promise<Map<number, number[]>> {
  const rows = await collectChunks(idChunks(userIds), (chunk) =>
    db
      .selectFrom("subscriptions as s")
      .innerJoin("subscription_periods as sp", (j) => j.onRef("sp.user_id", "=", "s.user_id").onRef("sp.stream_id", "=", "s.stream_id").on("sp.last_message_id", "is", null))
      .select(["s.user_id", "s.stream_id"])
      .where("s.realm_id", "=", realmId)
      .where("s.user_id", "in", chunk)
      .where("s.active", "=", 1)
      .where("s.is_muted", "=", 0)
      .where("sp.first_message_id", "<=", fromId)
      .orderBy("s.stream_id")
      .execute(),
  );
  const out = new Map<number, number[]>();
  for (const r of rows) out.set(r.user_id, [...(out.get(r.user_id) ?? []), r.stream_id]);
  return out;
}

/** A channel message as a digest counts it. */
export type DigestMessage = { id: number; topic: string; sender_id: number };

/** A channel's messages after `afterId` and sent after `afterSeconds`, oldest first. */
export function channelMessagesAfter(db: Db, realmId: number, streamId: number, afterId: number, afterSeconds: number): Promise<DigestMessage[]> {
  return db
    .selectFrom("messages")
    .select(["id", "topic", "sender_id"])
    .where("realm_id", "=", realmId)
    .where("stream_id", "=", streamId)
    .where("id", ">", afterId)
    .where("date_sent", ">", afterSeconds)
    .orderBy("id")
    .execute();
}

/** The realm's channels created after `afterSeconds` and not archived, oldest first. */
export function channelsCreatedAfter(db: Db, realmId: number, afterSeconds: number): Promise<StreamRow[]> {
  return db.selectFrom("streams").selectAll().where("realm_id", "=", realmId).where("date_created", ">", afterSeconds).where("is_archived", "=", 0).orderBy("id").execute();
}

/** How many messages after `afterId` the user received from people (not bots). */
export async function receivedFromPeopleAfter(db: Db, realmId: number, userId: number, afterId: number): Promise<number> {
  const row = await db
    .selectFrom("messages")
    .innerJoin("users as sender", "sender.id", "messages.sender_id")
    .select(sql<number>`count(*)`.as("n"))
    .where("messages.realm_id", "=", realmId)
    .where("messages.id", ">", afterId)
    .where("sender.is_bot", "=", 0)
    .where(receivedBySql(userId))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Records that these users were considered for a digest at `at` (UNIX seconds). */
export async function recordDigestsConsidered(db: Db, realmId: number, userIds: readonly number[], at: number): Promise<void> {
  const rows = userIds.map((user_id) => ({ user_id, realm_id: realmId, last_digest_at: at }));
  await eachChunk(rowChunks(rows), (chunk) =>
    db
      .insertInto("digest_emails")
      .values(chunk)
      .onConflict((oc) => oc.column("user_id").doUpdateSet({ last_digest_at: at }))
      .execute(),
  );
}
