/**
 * Writes to the realm's custom profile fields beyond creation (which, with the reads, lives in
 * custom-profile.ts): update, delete with their values, reorder, and the uniqueness checks.
 */
import type { Updateable } from "kysely";
import type { Db } from "../schema/types.ts";
import type { CustomProfileFieldTable } from "../schema/database.ts";
import { eachChunk, valueChunks } from "../engine/chunks.ts";

/** Changes to a field's columns. */
export type ProfileFieldPatch = Updateable<CustomProfileFieldTable>;

/** Changes a field. */
export async function updateProfileField(db: Db, realmId: number, fieldId: number, patch: ProfileFieldPatch): Promise<void> {
  await db.updateTable("custom_profile_fields").set(patch).where("realm_id", "=", realmId).where("id", "=", fieldId).execute();
}

/** Deletes a field and every user's value for it. */
export async function deleteProfileField(db: Db, realmId: number, fieldId: number): Promise<void> {
  await db.deleteFrom("custom_profile_values").where("realm_id", "=", realmId).where("field_id", "=", fieldId).execute();
  await db.deleteFrom("custom_profile_fields").where("realm_id", "=", realmId).where("id", "=", fieldId).execute();
}

/**
 * Gives each field of the realm its position in `orderedIds` as its order (its last position, if
 * listed twice, as Zulip's mapping has it); ids of no field are ignored, so a long list costs one
 * write per field.
 */
export async function reorderProfileFields(db: Db, realmId: number, orderedIds: number[]): Promise<void> {
  const positions = new Map(orderedIds.map((id, order) => [id, order]));
  const fields = await db.selectFrom("custom_profile_fields").select("id").where("realm_id", "=", realmId).execute();
  for (const { id } of fields) {
    const order = positions.get(id);
    if (order !== undefined) await db.updateTable("custom_profile_fields").set({ order }).where("realm_id", "=", realmId).where("id", "=", id).execute();
  }
}

/** Number of fields shown in profile summaries, not counting `exceptId`. */
export async function countSummaryFields(db: Db, realmId: number, exceptId: number | null): Promise<number> {
  let query = db
    .selectFrom("custom_profile_fields")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("realm_id", "=", realmId)
    .where("display_in_profile_summary", "=", 1);
  if (exceptId !== null) query = query.where("id", "!=", exceptId);
  return Number((await query.executeTakeFirst())?.n ?? 0);
}

/** Whether another field of the realm has this name (labels are unique per organization). */
export async function profileFieldNameTaken(db: Db, realmId: number, name: string, exceptId: number | null): Promise<boolean> {
  let query = db.selectFrom("custom_profile_fields").select("id").where("realm_id", "=", realmId).where("name", "=", name);
  if (exceptId !== null) query = query.where("id", "!=", exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** Removes users' values of a field that are not among `keep` (a list-of-options field lost choices). */
export async function deleteValuesNotIn(db: Db, realmId: number, fieldId: number, keep: string[]): Promise<void> {
  // The stored values are compared here: a `not in` list cannot be cut into chunks.
  const kept = new Set(keep);
  const stored = await db.selectFrom("custom_profile_values").select("value").distinct().where("realm_id", "=", realmId).where("field_id", "=", fieldId).execute();
  const gone = stored.map((r) => r.value).filter((value) => !kept.has(value));
  await eachChunk(valueChunks(gone), (chunk) =>
    db.deleteFrom("custom_profile_values").where("realm_id", "=", realmId).where("field_id", "=", fieldId).where("value", "in", chunk).execute(),
  );
}
