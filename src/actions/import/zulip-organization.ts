/**
 * The organization itself: its Realm row (id, URL key, name, description and uuid kept), its
 * settings (written once its groups are in), and what it defines for everyone: allowed email
 * domains, new users' default settings, linkifiers, code playgrounds, custom emoji and custom
 * profile fields.
 */
import { randomUUID } from "node:crypto";
import { settingsTextWith, USER_SETTING_DEFAULTS, type UserSettingName, type UserSettingValue } from "../../model/user-settings.ts";
import { EMAIL_VISIBILITY } from "../../model/emails.ts";
import { insertRows } from "../../store/import/bulk-insert.ts";
import { updateRealmSettings } from "../../store/realm/realms.ts";
import type { ZulipExport } from "../../formats/zulip/export-reader.ts";
import { anyRow, linkifierRow, playgroundRow, profileFieldRow, realmDomainRow, realmEmojiRow, realmRow } from "../../formats/zulip/rows.ts";
import { count, flag, refuse, seconds, type ImportEnv } from "./import-env.ts";
import { importedRealmSettings } from "./zulip-realm-settings.ts";
import type { ZulipImportState } from "./zulip-state.ts";

/** Personal settings as stored: the values among `row`'s fields that differ from Zulip's defaults. */
export function personalSettingsText(row: Record<string, unknown>): string {
  const values: Partial<Record<UserSettingName, UserSettingValue>> = {};
  for (const name of Object.keys(USER_SETTING_DEFAULTS) as UserSettingName[]) {
    const value = row[name];
    if (typeof value === typeof USER_SETTING_DEFAULTS[name]) values[name] = value as UserSettingValue;
  }
  return settingsTextWith("{}", values);
}

/** Writes the Realm row; returns it as read (its settings come later, with writeRealmSettings). */
export async function writeRealm(env: Omit<ImportEnv, "realmId">, source: ZulipExport): Promise<Record<string, unknown> & { id: number }> {
  const rows = await source.all("realm", "zerver_realm", realmRow);
  if (rows.length !== 1) refuse(`realm.json holds ${rows.length} organizations (zerver_realm); an export holds exactly one`);
  const realm = rows[0];
  await insertRows(env.tx, "realms", [
    {
      id: realm.id,
      string_id: realm.string_id,
      name: realm.name,
      description: realm.description,
      date_created: seconds(realm.date_created),
      deactivated: flag(realm.deactivated),
      settings: "{}",
      uuid: typeof realm.uuid === "string" ? realm.uuid : randomUUID(),
    },
  ]);
  env.log(`organization "${realm.name}" (id ${realm.id}, ${source.version.zulipVersion})`);
  return realm;
}

/** Writes the organization's settings, its allowed domains and its defaults for new users. */
export async function writeRealmSettings(env: ImportEnv, source: ZulipExport, realm: Record<string, unknown>, state: ZulipImportState): Promise<void> {
  await updateRealmSettings(env.tx, env.realmId, importedRealmSettings(realm, state.systemGroups, state.groupIds));
  const domains = await source.all("realm", "zerver_realmdomain", realmDomainRow);
  await insertRows(env.tx, "realm_domains", domains.map((d) => ({ id: d.id, realm_id: env.realmId, domain: d.domain, allow_subdomains: flag(d.allow_subdomains) })));
  const defaults = await source.all("realm", "zerver_realmuserdefault", anyRow);
  if (defaults.length > 0) {
    const row = defaults[0] as Record<string, unknown>;
    const settings: Record<string, unknown> = JSON.parse(personalSettingsText(row));
    if (typeof row.email_address_visibility === "number" && row.email_address_visibility !== EMAIL_VISIBILITY.everyone) settings.email_address_visibility = row.email_address_visibility;
    await insertRows(env.tx, "realm_user_defaults", [{ realm_id: env.realmId, settings: JSON.stringify(settings) }]);
  }
}

/** Writes linkifiers, code playgrounds, custom emoji (rows; their images are files) and custom profile fields. */
export async function writeRealmTables(env: ImportEnv, source: ZulipExport, state: ZulipImportState): Promise<void> {
  const linkifiers = await source.all("realm", "zerver_realmfilter", linkifierRow);
  await insertRows(env.tx, "linkifiers", linkifiers.map((l) => ({ id: l.id, realm_id: env.realmId, pattern: l.pattern, url_template: l.url_template, order: l.order })));
  const playgrounds = await source.all("realm", "zerver_realmplayground", playgroundRow);
  await insertRows(env.tx, "realm_playgrounds", playgrounds.map((p) => ({ id: p.id, realm_id: env.realmId, name: p.name, pygments_language: p.pygments_language, url_template: p.url_template })));
  const emoji = await source.all("realm", "zerver_realmemoji", realmEmojiRow);
  for (const e of emoji) {
    if (e.author !== null && !state.users.has(e.author)) refuse(`custom emoji ${e.name} names author ${e.author}, who is not in the export`);
    if (e.file_name === null) refuse(`custom emoji ${e.name} has no image file`);
  }
  await insertRows(
    env.tx,
    "realm_emoji",
    emoji.map((e) => ({ id: e.id, realm_id: env.realmId, name: e.name, file_name: e.file_name ?? "", author_id: e.author, deactivated: flag(e.deactivated), is_animated: flag(e.is_animated) })),
  );
  const fields = await source.all("realm", "zerver_customprofilefield", profileFieldRow);
  await insertRows(
    env.tx,
    "custom_profile_fields",
    fields.map((f) => ({
      id: f.id,
      realm_id: env.realmId,
      name: f.name,
      hint: f.hint,
      field_type: f.field_type,
      field_data: f.field_data,
      order: f.order,
      display_in_profile_summary: flag(f.display_in_profile_summary),
      required: flag(f.required),
      editable_by_user: flag(f.editable_by_user),
    })),
  );
  count(env, "linkifiers", linkifiers.length);
  count(env, "code playgrounds", playgrounds.length);
  count(env, "custom emoji", emoji.length);
  count(env, "custom profile fields", fields.length);
}
