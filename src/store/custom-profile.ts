/** Queries on custom profile fields and users' values for them. */
import type { Db } from "./types.ts";
import type { CustomProfileFieldRow } from "./schema.ts";
import { collectChunks, idChunks } from "./chunks.ts";

/** One user's value for one field. */
export type ProfileValueRow = { user_id: number; field_id: number; value: string; rendered_value: string | null };

/** What creating a field needs (the create endpoint and tests use it). */
export type NewProfileField = {
  name: string;
  hint?: string;
  fieldType: number;
  /** JSON text, e.g. the choices of a list-of-options field; "" when the type has none. */
  fieldData?: string;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
};

/** The realm's fields in display order. */
export function listProfileFields(db: Db, realmId: number): Promise<CustomProfileFieldRow[]> {
  return db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id").execute();
}

/** A field by id, or undefined. */
export function getProfileField(db: Db, realmId: number, fieldId: number): Promise<CustomProfileFieldRow | undefined> {
  return db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).where("id", "=", fieldId).executeTakeFirst();
}

/** Creates a field at the end of the display order. */
export async function createProfileField(db: Db, realmId: number, field: NewProfileField): Promise<CustomProfileFieldRow> {
  const last = await db
    .selectFrom("custom_profile_fields")
    .select((eb) => eb.fn.max("order").as("max"))
    .where("realm_id", "=", realmId)
    .executeTakeFirst();
  return db
    .insertInto("custom_profile_fields")
    .values({
      realm_id: realmId,
      name: field.name,
      hint: field.hint ?? "",
      field_type: field.fieldType,
      field_data: field.fieldData ?? "",
      order: Number(last?.max ?? 0) + 1,
      display_in_profile_summary: field.displayInProfileSummary ? 1 : 0,
      required: field.required ? 1 : 0,
      editable_by_user: field.editableByUser === false ? 0 : 1,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Values of the given users (every user when `userIds` is null), grouped by user id. */
export async function profileValuesByUser(db: Db, realmId: number, userIds: number[] | null): Promise<Map<number, ProfileValueRow[]>> {
  const out = new Map<number, ProfileValueRow[]>();
  const query = db
    .selectFrom("custom_profile_values")
    .select(["user_id", "field_id", "value", "rendered_value"])
    .where("realm_id", "=", realmId)
    .orderBy("field_id");
  // Each user's values come whole from one chunk, so each list stays in field order.
  const rows = userIds === null ? await query.execute() : await collectChunks(idChunks(userIds), (chunk) => query.where("user_id", "in", chunk).execute());
  for (const row of rows) {
    const list = out.get(row.user_id);
    if (list) list.push(row);
    else out.set(row.user_id, [row]);
  }
  return out;
}

/** One user's stored value for one field, or undefined. */
export async function getProfileValue(db: Db, realmId: number, userId: number, fieldId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom("custom_profile_values")
    .select("value")
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("field_id", "=", fieldId)
    .executeTakeFirst();
  return row?.value;
}

/** Sets one value, replacing any earlier one. */
export async function setProfileValue(db: Db, realmId: number, row: ProfileValueRow): Promise<void> {
  await db
    .insertInto("custom_profile_values")
    .values({ realm_id: realmId, ...row })
    .onConflict((oc) => oc.columns(["user_id", "field_id"]).doUpdateSet({ value: row.value, rendered_value: row.rendered_value }))
    .execute();
}

/** Removes one value; returns whether there was one. */
export async function deleteProfileValue(db: Db, realmId: number, userId: number, fieldId: number): Promise<boolean> {
  const result = await db
    .deleteFrom("custom_profile_values")
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("field_id", "=", fieldId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
