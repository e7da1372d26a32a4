/** Queries on custom profile fields and users' values for them. */
import type { Db } from "../schema/types.ts";
import type { CustomProfileFieldRow } from "../schema/database.ts";
import { collectChunks, idChunks } from "../engine/chunks.ts";
import { cachedRealmRows, cachedRealmValue } from "../engine/read-cache.ts";
import { pushTo } from "../../collections.ts";

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

/** The realm's fields in display order (every register reads them). */
export const listProfileFields = cachedRealmRows<CustomProfileFieldRow>("profile fields", ["custom_profile_fields"], (db, realmId) =>
  db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id").execute(),
);

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

/** Users' values by user id, each user's in field order. */
export type ProfileValuesByUser = ReadonlyMap<number, ReadonlyArray<Readonly<ProfileValueRow>>>;

function valuesQuery(db: Db, realmId: number) {
  return db.selectFrom("custom_profile_values").select(["user_id", "field_id", "value", "rendered_value"]).where("realm_id", "=", realmId).orderBy("field_id");
}

function byUser(rows: ProfileValueRow[]): ProfileValuesByUser {
  const out = new Map<number, ProfileValueRow[]>();
  for (const row of rows) pushTo(out, row.user_id, row);
  return out;
}

/** Values of the given users. */
export async function profileValuesByUser(db: Db, realmId: number, userIds: readonly number[]): Promise<ProfileValuesByUser> {
  // Each user's values come whole from one chunk, so each list stays in field order.
  return byUser(await collectChunks(idChunks(userIds), (chunk) => valuesQuery(db, realmId).where("user_id", "in", chunk).execute()));
}

/**
 * Every user's values (the register snapshot's realm_users), kept by the read cache until
 * custom_profile_values is written. Shared between callers, hence read-only.
 */
export const realmProfileValues = cachedRealmValue("realm profile values", ["custom_profile_values"], async (db, realmId) => byUser(await valuesQuery(db, realmId).execute()));

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
