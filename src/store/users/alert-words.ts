/** Users' alert words: the user's own list, and the realm's words by user for the send path. */
import type { Selectable } from "kysely";
import type { Db } from "../schema/types.ts";
import { eachChunk, idChunks, rowChunks } from "../engine/chunks.ts";
import { cachedRealmValue, cachedUserRows } from "../engine/read-cache.ts";
import type { AlertWordTable } from "../schema/alert-words.ts";
import { pushTo } from "../../collections.ts";

/** A stored alert word. */
type AlertWordRow = Selectable<AlertWordTable>;

/** A user's alert words in the order they were added. */
export const listAlertWords = cachedUserRows("alert words of a user", ["alert_words"], (db, realmId, userId): Promise<Array<Pick<AlertWordRow, "id" | "word">>> =>
  db.selectFrom("alert_words").select(["id", "word"]).where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id").execute(),
);

/** Adds words to a user's list; a word already there exactly as given (a concurrent add) is skipped. */
export async function insertAlertWords(db: Db, realmId: number, userId: number, words: readonly string[]): Promise<void> {
  const rows = words.map((word) => ({ realm_id: realmId, user_id: userId, word }));
  await eachChunk(rowChunks(rows), (values) =>
    db
      .insertInto("alert_words")
      .values(values)
      .onConflict((oc) => oc.columns(["user_id", "word"]).doNothing())
      .execute(),
  );
}

/** Deletes some of a user's alert words by id. */
export async function deleteAlertWords(db: Db, realmId: number, userId: number, ids: readonly number[]): Promise<void> {
  await eachChunk(idChunks(ids), (chunk) =>
    db.deleteFrom("alert_words").where("realm_id", "=", realmId).where("user_id", "=", userId).where("id", "in", chunk).execute(),
  );
}

/** A realm's alert words, lowercased, by the user who set them (only users with some). */
export type RealmAlertWords = ReadonlyMap<number, readonly string[]>;

/**
 * Every alert word of a realm by user, lowercased (Zulip's alert_words_in_realm), for the send
 * path: kept by the read cache until alert_words is written, so a send in a realm where nobody
 * changed their words reads nothing. Shared between callers, hence read-only.
 */
export const realmAlertWords = cachedRealmValue("realm alert words", ["alert_words"], async (db, realmId): Promise<RealmAlertWords> => {
  const rows = await db.selectFrom("alert_words").select(["user_id", "word"]).where("realm_id", "=", realmId).orderBy("id").execute();
  const out = new Map<number, string[]>();
  for (const row of rows) pushTo(out, row.user_id, row.word.toLowerCase());
  return out;
});
