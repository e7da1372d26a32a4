/** Validating and storing users' custom profile field values, per field type, with Zulip's messages. */
import type { Transaction } from "kysely";
import { JsonableError } from "../http/errors.ts";
import { isRealmAdmin } from "../permissions/check.ts";
import { CUSTOM_PROFILE_FIELD_TYPES } from "../present/users.ts";
import { realmUserUpdateEvent } from "../events/kinds/users.ts";
import type { Db } from "../store/db.ts";
import { deleteProfileValue, getProfileField, getProfileValue, setProfileValue } from "../store/custom-profile.ts";
import type { CustomProfileFieldRow, Database, UserRow } from "../store/schema.ts";
import { usersByIds } from "../store/users.ts";
import type { Emit } from "./context.ts";

/** One element of `profile_data`: a field id and its new value (null or empty clears it). */
export type ProfileDataUpdate = { id: number; value: string | number[] | null };

/** A validated change: the stored text (null to clear) and its rendering. */
type CleanValue = { field: CustomProfileFieldRow; value: string | null; rendered: string | null };

const T = CUSTOM_PROFILE_FIELD_TYPES;
// Zulip's check_short_string / check_long_string caps.
const SHORT_TEXT_LIMIT = 50;
const LONG_TEXT_LIMIT = 500;

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function checkString(field: CustomProfileFieldRow, value: string | number[], limit: number): string {
  if (typeof value !== "string") throw new JsonableError(`${field.name} is not a string`);
  if (value.length > limit) throw new JsonableError(`${field.name} is too long (limit: ${limit} characters)`);
  return value;
}

function checkDate(field: CustomProfileFieldRow, value: string | number[]): string {
  const text = typeof value === "string" ? value : "";
  const date = new Date(`${text}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) {
    throw new JsonableError(`${field.name} is not a date`);
  }
  return text;
}

function checkUrl(field: CustomProfileFieldRow, value: string | number[]): string {
  const text = typeof value === "string" ? value : "";
  let ok = false;
  try {
    ok = ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw new JsonableError(`${field.name} is not a URL`);
  return text;
}

function checkChoice(field: CustomProfileFieldRow, value: string | number[]): string {
  const choices: unknown = field.field_data === "" ? {} : JSON.parse(field.field_data);
  if (typeof value !== "string" || typeof choices !== "object" || choices === null || !Object.hasOwn(choices, value)) {
    throw new JsonableError(`'${String(value)}' is not a valid choice for '${field.name}'.`);
  }
  return value;
}

async function checkUserIds(db: Db, realmId: number, value: string | number[]): Promise<string> {
  if (!Array.isArray(value)) throw new JsonableError("User IDs is not a list");
  const found = new Set((await usersByIds(db, realmId, value)).filter((u) => u.is_active === 1).map((u) => u.id));
  for (const id of value) if (!found.has(id)) throw new JsonableError(`Invalid user ID: ${id}`);
  return JSON.stringify(value);
}

/** The text to store for a non-empty value, or a BAD_REQUEST naming what is wrong. */
async function cleanValue(db: Db, realmId: number, field: CustomProfileFieldRow, value: string | number[]): Promise<string> {
  switch (field.field_type) {
    case T.SHORT_TEXT.id:
    case T.EXTERNAL_ACCOUNT.id:
    case T.PRONOUNS.id:
      return checkString(field, value, SHORT_TEXT_LIMIT);
    case T.LONG_TEXT.id:
      return checkString(field, value, LONG_TEXT_LIMIT);
    case T.DATE.id:
      return checkDate(field, value);
    case T.URL.id:
      return checkUrl(field, value);
    case T.SELECT.id:
      return checkChoice(field, value);
    case T.USER.id:
      return checkUserIds(db, realmId, value);
    default:
      throw new Error(`custom profile field ${field.id} has unknown type ${field.field_type}`);
  }
}

/** Checks every element (unknown fields, fields the actor may not edit, bad values). */
export async function validateProfileData(db: Db, realmId: number, actor: UserRow, updates: ProfileDataUpdate[]): Promise<CleanValue[]> {
  const out: CleanValue[] = [];
  for (const update of updates) {
    const field = await getProfileField(db, realmId, update.id);
    if (!field) throw new JsonableError(`Field id ${update.id} not found.`);
    if (!isRealmAdmin(actor) && field.editable_by_user !== 1) {
      throw new JsonableError("You are not allowed to change this field. Contact an administrator to update it.");
    }
    const empty = update.value === null || update.value.length === 0;
    const value = empty || update.value === null ? null : await cleanValue(db, realmId, field, update.value);
    // Text fields carry Markdown; until the renderer exists they render as one escaped paragraph.
    const renders = field.field_type === T.SHORT_TEXT.id || field.field_type === T.LONG_TEXT.id;
    out.push({ field, value, rendered: value !== null && renders ? `<p>${escapeHtml(value)}</p>` : null });
  }
  return out;
}

/** Stores validated values and emits one realm_user update per field that changed. */
export async function doUpdateProfileData(tx: Transaction<Database>, realmId: number, user: UserRow, values: CleanValue[], emit: Emit, recipients: number[]): Promise<void> {
  for (const { field, value, rendered } of values) {
    if (value === null) {
      if (!(await deleteProfileValue(tx, realmId, user.id, field.id))) continue;
      emit(realmUserUpdateEvent(user.id, { custom_profile_field: { id: field.id, value: null } }), recipients);
      continue;
    }
    if ((await getProfileValue(tx, realmId, user.id, field.id)) === value) continue;
    await setProfileValue(tx, realmId, { user_id: user.id, field_id: field.id, value, rendered_value: rendered });
    const change = rendered === null ? { id: field.id, value } : { id: field.id, value, rendered_value: rendered };
    emit(realmUserUpdateEvent(user.id, { custom_profile_field: change }), recipients);
  }
}
