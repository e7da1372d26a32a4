/**
 * Custom profile fields (Zulip's custom_profile_fields views and actions): administrators
 * create, update, delete and reorder them; users set and clear their own values.
 */
import type { Transaction } from "kysely";
import { AdministratorRequiredError, JsonableError } from "../../errors.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { CUSTOM_PROFILE_FIELD_TYPES as T, presentProfileField } from "../../present/users.ts";
import { customProfileFieldsEvent } from "../../events/kinds/organization.ts";
import { createProfileField, getProfileField, listProfileFields } from "../../store/realm/custom-profile.ts";
import {
  countSummaryFields,
  deleteProfileField,
  deleteValuesNotIn,
  profileFieldNameTaken,
  reorderProfileFields,
  updateProfileField,
  type ProfileFieldPatch,
} from "../../store/realm/profile-fields.ts";
import type { CustomProfileFieldRow, Database } from "../../store/schema/database.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { doEnv, withTransaction, type AuthedCtx, type Emit } from "../context.ts";
import {
  checkFieldData,
  checkFieldDataShape,
  defaultExternalAccount,
  doUpdateProfileData,
  validateProfileData,
  type FieldData,
  type ProfileDataUpdate,
} from "../users/profile-data.ts";
import { userIdsWhoCanAccess } from "../../permissions/user-access.ts";

/** POST /realm/profile_fields parameters, defaults applied by the route. */
type NewField = {
  name: string;
  hint: string;
  field_type: number;
  field_data?: unknown;
  display_in_profile_summary: boolean;
  required: boolean;
  editable_by_user: boolean;
};

/** PATCH /realm/profile_fields/{id} parameters; absent ones are left unchanged. */
type FieldChanges = Partial<Omit<NewField, "field_type">>;

/** Zulip's CustomProfileField.MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS. */
const MAX_SUMMARY_FIELDS = 2;
/** Zulip's NAME_MAX_LENGTH and HINT_MAX_LENGTH, in characters. */
const NAME_LIMIT = 40;
const HINT_LIMIT = 80;

const FIELD_TYPES: ReadonlySet<number> = new Set(Object.values(T).map((t) => t.id));

function checkAdmin(ctx: AuthedCtx): void {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
}

function checkHuman(ctx: AuthedCtx): void {
  if (ctx.actor.is_bot === 1) throw new JsonableError("This endpoint does not accept bot requests.");
}

async function checkSummaryLimit(tx: Transaction<Database>, realmId: number, exceptId: number | null): Promise<void> {
  if ((await countSummaryFields(tx, realmId, exceptId)) >= MAX_SUMMARY_FIELDS) {
    throw new JsonableError(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
  }
}

/** Zulip's validate_custom_profile_field: data per type, label and hint, type, summary support. */
function checkField(name: string, hint: string, fieldType: number, fieldData: FieldData, inSummary: boolean): void {
  checkFieldData(fieldType, fieldData);
  if (defaultExternalAccount(fieldType, fieldData) === null) {
    if (name.trim() === "") throw new JsonableError("Label cannot be blank.");
    if ([...hint].length > HINT_LIMIT) throw new JsonableError(`hint is too long (limit: ${HINT_LIMIT} characters)`);
    if ([...name].length > NAME_LIMIT) throw new JsonableError(`name is too long (limit: ${NAME_LIMIT} characters)`);
  }
  if (!FIELD_TYPES.has(fieldType)) throw new JsonableError("Invalid field type.");
  // Long text does not fit a summary; the person picker needs client support first.
  if (inSummary && (fieldType === T.LONG_TEXT.id || fieldType === T.USER.id)) {
    throw new JsonableError("Field type not supported for display in profile summary.");
  }
}

async function checkUniqueName(tx: Transaction<Database>, realmId: number, name: string, exceptId: number | null): Promise<void> {
  if (await profileFieldNameTaken(tx, realmId, name, exceptId)) throw new JsonableError("A field with that label already exists.");
}

/** Only list-of-options and external-account fields keep field_data; others store "". */
function storedFieldData(fieldType: number, fieldData: FieldData): string {
  return fieldType === T.SELECT.id || fieldType === T.EXTERNAL_ACCOUNT.id ? JSON.stringify(fieldData) : "";
}

/** Announces the realm's fields (all of them, in order) to every active user. */
async function notifyFields(tx: Transaction<Database>, realmId: number, emit: Emit): Promise<void> {
  const fields = (await listProfileFields(tx, realmId)).map(presentProfileField);
  emit(customProfileFieldsEvent(fields), await activeUserIds(tx, realmId));
}

async function accessField(tx: Transaction<Database>, realmId: number, fieldId: number): Promise<CustomProfileFieldRow> {
  const field = await getProfileField(tx, realmId, fieldId);
  if (!field) throw new JsonableError(`Field id ${fieldId} not found.`);
  return field;
}

function parseStoredData(field: CustomProfileFieldRow): FieldData {
  const parsed: unknown = field.field_data === "" ? {} : JSON.parse(field.field_data);
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? { ...parsed } : {};
}

/** GET /realm/profile_fields: every field, in display order. */
export async function listFields(ctx: AuthedCtx): Promise<{ custom_fields: Record<string, unknown>[] }> {
  return { custom_fields: (await listProfileFields(ctx.db, ctx.realm.id)).map(presentProfileField) };
}

/** POST /realm/profile_fields: a new field at the end of the order (administrators only). */
export async function createField(ctx: AuthedCtx, input: NewField): Promise<{ id: number }> {
  checkAdmin(ctx);
  const name = input.name.trim();
  return withTransaction(ctx, async (tx, emit) => {
    if (input.display_in_profile_summary) await checkSummaryLimit(tx, ctx.realm.id, null);
    const fieldData = input.field_data === undefined ? {} : checkFieldDataShape(input.field_data);
    checkField(name, input.hint, input.field_type, fieldData, input.display_in_profile_summary);
    const preset = defaultExternalAccount(input.field_type, fieldData);
    const finalName = preset?.name ?? name;
    await checkUniqueName(tx, ctx.realm.id, finalName, null);
    const field = await createProfileField(tx, ctx.realm.id, {
      name: finalName,
      hint: preset ? preset.hint : input.hint,
      fieldType: input.field_type,
      fieldData: preset ? JSON.stringify({ subtype: preset.subtype }) : storedFieldData(input.field_type, fieldData),
      displayInProfileSummary: input.display_in_profile_summary,
      required: input.required,
      editableByUser: input.editable_by_user,
    });
    await notifyFields(tx, ctx.realm.id, emit);
    return { id: field.id };
  });
}

/** The columns an update writes, after Zulip's checks. */
async function fieldPatch(tx: Transaction<Database>, realmId: number, field: CustomProfileFieldRow, changes: FieldChanges): Promise<ProfileFieldPatch> {
  const name = changes.name?.trim();
  const stored = parseStoredData(field);
  const fieldData = changes.field_data === undefined ? undefined : checkFieldDataShape(changes.field_data);
  const preset = defaultExternalAccount(field.field_type, stored);
  const onlySummary =
    (name === undefined || name === field.name) &&
    (changes.hint === undefined || changes.hint === field.hint) &&
    (fieldData === undefined || JSON.stringify(fieldData) === JSON.stringify(stored));
  if (preset !== null && !onlySummary) throw new JsonableError("Default custom field cannot be updated.");
  const inSummary = changes.display_in_profile_summary ?? field.display_in_profile_summary === 1;
  checkField(name ?? field.name, changes.hint ?? field.hint, field.field_type, fieldData ?? stored, inSummary);
  if (name !== undefined && name !== field.name) await checkUniqueName(tx, realmId, name, field.id);
  const patch: ProfileFieldPatch = {};
  if (name !== undefined) patch.name = name;
  if (changes.hint !== undefined) patch.hint = changes.hint;
  if (changes.required !== undefined) patch.required = changes.required ? 1 : 0;
  if (changes.editable_by_user !== undefined) patch.editable_by_user = changes.editable_by_user ? 1 : 0;
  if (changes.display_in_profile_summary !== undefined) patch.display_in_profile_summary = changes.display_in_profile_summary ? 1 : 0;
  const keepsData = field.field_type === T.SELECT.id || field.field_type === T.EXTERNAL_ACCOUNT.id;
  if (keepsData && (fieldData !== undefined || field.field_data === "")) patch.field_data = JSON.stringify(fieldData ?? {});
  return patch;
}

/** PATCH /realm/profile_fields/{id}: changes a field; users' choices removed from a list are dropped. */
export async function updateField(ctx: AuthedCtx, fieldId: number, changes: FieldChanges): Promise<Record<string, never>> {
  checkAdmin(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    const field = await accessField(tx, ctx.realm.id, fieldId);
    if (changes.display_in_profile_summary) await checkSummaryLimit(tx, ctx.realm.id, field.id);
    const patch = await fieldPatch(tx, ctx.realm.id, field, changes);
    if (field.field_type === T.SELECT.id && changes.field_data !== undefined) {
      await deleteValuesNotIn(tx, ctx.realm.id, field.id, Object.keys(checkFieldDataShape(changes.field_data)));
    }
    // Nothing to change is a no-op, as upstream (which still sends the fields).
    if (Object.keys(patch).length > 0) await updateProfileField(tx, ctx.realm.id, field.id, patch);
    await notifyFields(tx, ctx.realm.id, emit);
  });
  return {};
}

/** DELETE /realm/profile_fields/{id}: removes a field and every user's value for it. */
export async function deleteField(ctx: AuthedCtx, fieldId: number): Promise<Record<string, never>> {
  checkAdmin(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    const field = await accessField(tx, ctx.realm.id, fieldId);
    await deleteProfileField(tx, ctx.realm.id, field.id);
    await notifyFields(tx, ctx.realm.id, emit);
  });
  return {};
}

/** PATCH /realm/profile_fields: a new display order, which must name every field. */
export async function reorderFields(ctx: AuthedCtx, order: number[]): Promise<Record<string, never>> {
  checkAdmin(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    const fields = await listProfileFields(tx, ctx.realm.id);
    if (fields.some((f) => !order.includes(f.id))) throw new JsonableError("Invalid order mapping.");
    // Ids that name no field are ignored, as upstream does; each field takes its (last) position.
    const positions = new Map(order.map((id, index) => [id, index]));
    const ordered = fields.map((f) => f.id).sort((a, b) => (positions.get(a) ?? 0) - (positions.get(b) ?? 0));
    await reorderProfileFields(tx, ctx.realm.id, ordered);
    await notifyFields(tx, ctx.realm.id, emit);
  });
  return {};
}

/** Sets or clears the caller's values; fields not editable by users need an administrator. */
async function changeOwnProfileData(ctx: AuthedCtx, updates: ProfileDataUpdate[]): Promise<Record<string, never>> {
  checkHuman(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    const values = await validateProfileData(tx, ctx.realm.id, ctx.actor, updates);
    await doUpdateProfileData(tx, doEnv(ctx, emit), ctx.actor, values, await userIdsWhoCanAccess(tx, ctx.realm, ctx.actor));
  });
  return {};
}

/** PATCH /users/me/profile_data: sets the caller's values. */
export function updateOwnProfileData(ctx: AuthedCtx, data: Array<{ id: number; value: string | number[] }>): Promise<Record<string, never>> {
  return changeOwnProfileData(ctx, data);
}

/** DELETE /users/me/profile_data: clears the caller's values for these fields. */
export function removeOwnProfileData(ctx: AuthedCtx, fieldIds: number[]): Promise<Record<string, never>> {
  return changeOwnProfileData(ctx, fieldIds.map((id) => ({ id, value: null })));
}
