/** Validating and storing users' custom profile field values, per field type, with Zulip's messages. */
import { JsonableError } from "../../errors.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { CUSTOM_PROFILE_FIELD_TYPES } from "../../present/users.ts";
import { realmUserUpdateEvent } from "../../events/kinds/users.ts";
import type { Db } from "../../store/schema/types.ts";
import { deleteProfileValue, getProfileField, getProfileValue, setProfileValue } from "../../store/realm/custom-profile.ts";
import type { CustomProfileFieldRow, UserRow } from "../../store/schema/database.ts";
import { usersByIds } from "../../store/users/users.ts";
import type { DoEnv } from "../context.ts";

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
export async function doUpdateProfileData(tx: Db, env: Pick<DoEnv, "realm" | "emit">, user: UserRow, values: CleanValue[], recipients: number[]): Promise<void> {
  const { emit } = env;
  const realmId = env.realm.id;
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

/** A field's `field_data` as sent: a JSON object (choices for list-of-options, subtype for external accounts). */
export type FieldData = Record<string, unknown>;

/** Default external account types (Zulip's DEFAULT_EXTERNAL_ACCOUNTS) and the labels their fields get. */
const DEFAULT_EXTERNAL_ACCOUNTS: Readonly<Record<string, { name: string }>> = {
  twitter: { name: "Twitter username" },
  github: { name: "GitHub username" },
  tiktok: { name: "TikTok username" },
  twitch: { name: "Twitch username" },
  x: { name: "X username" },
  youtube: { name: "YouTube handle" },
};

/** The placeholder an external account's URL pattern must contain exactly once. */
const USERNAME_PLACEHOLDER = "%(username)s";

/** `field_data` must be a JSON object (Zulip's check_dict). */
export function checkFieldDataShape(value: unknown): FieldData {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new JsonableError("field_data is not a dict");
  return { ...value };
}

/** Zulip's check_dict_only with required string keys: only `keys`, each a non-blank string. */
function checkStringDict(value: unknown, required: readonly string[], optional: readonly string[] = []): Record<string, string> {
  const dict = checkFieldDataShape(value);
  const out: Record<string, string> = {};
  for (const key of required) {
    if (!(key in dict)) throw new JsonableError(`${key} key is missing from field_data`);
  }
  for (const key of [...required, ...optional]) {
    if (!(key in dict)) continue;
    const v = dict[key];
    if (typeof v !== "string") throw new JsonableError(`field_data["${key}"] is not a string`);
    if (required.includes(key) && v.trim() === "") throw new JsonableError(`field_data["${key}"] cannot be blank.`);
    out[key] = v;
  }
  const extra = Object.keys(dict).filter((k) => !required.includes(k) && !optional.includes(k));
  if (extra.length > 0) throw new JsonableError(`Unexpected arguments: ${extra.join(", ")}`);
  return out;
}

/** List-of-options data: at least one choice, each `{text, order}`, no blank keys, no repeated texts. */
function checkChoices(data: FieldData): void {
  if (Object.keys(data).length < 1) throw new JsonableError("Field must have at least one choice.");
  const texts = new Set<string>();
  for (const [key, value] of Object.entries(data)) {
    if (key.trim() === "") throw new JsonableError("'value' cannot be blank.");
    texts.add(checkStringDict(value, ["text", "order"]).text);
  }
  if (texts.size !== Object.keys(data).length) throw new JsonableError("Field must not have duplicate choices.");
}

/** External-account data: a known `subtype`, or `custom` with a URL pattern holding the username once. */
function checkExternalAccount(data: FieldData): void {
  const dict = checkStringDict(data, ["subtype"], ["url_pattern"]);
  const pattern = dict.url_pattern;
  if (pattern !== undefined) {
    if (pattern.split(USERNAME_PLACEHOLDER).length !== 2) throw new JsonableError("URL pattern must contain '%(username)s'.");
    let ok = false;
    try {
      ok = ["http:", "https:"].includes(new URL(pattern.replace(USERNAME_PLACEHOLDER, "username")).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw new JsonableError('field_data["url_pattern"] is not a URL');
  }
  if (!Object.hasOwn(DEFAULT_EXTERNAL_ACCOUNTS, dict.subtype) && dict.subtype !== "custom") throw new JsonableError("Invalid external account type");
}

/** Zulip's validate_custom_field_data: the field_data a field type needs (other types ignore it). */
export function checkFieldData(fieldType: number, data: FieldData): void {
  if (fieldType === T.SELECT.id) checkChoices(data);
  else if (fieldType === T.EXTERNAL_ACCOUNT.id) checkExternalAccount(data);
}

/** The preset of a default external account field (its label comes from the preset), or null. */
export function defaultExternalAccount(fieldType: number, data: FieldData): { subtype: string; name: string; hint: string } | null {
  const subtype = data.subtype;
  if (fieldType !== T.EXTERNAL_ACCOUNT.id || typeof subtype !== "string" || !Object.hasOwn(DEFAULT_EXTERNAL_ACCOUNTS, subtype)) return null;
  return { subtype, name: DEFAULT_EXTERNAL_ACCOUNTS[subtype].name, hint: "" };
}
