/**
 * The rules personal settings share between PATCH /settings and PATCH /realm/user_settings_defaults
 * (Zulip's check_settings_values), the languages a user may choose, and the settings a new user
 * starts with (the realm's defaults, as Zulip's copy_default_settings).
 */
import { JsonableError } from "../../errors.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { EMAIL_VISIBILITY } from "../../model/emails.ts";
import type { Db } from "../../store/schema/types.ts";
import type { RealmRow } from "../../store/schema/database.ts";
import { getRealmUserDefaults } from "../../store/users/settings.ts";
import { isSettingName, settingsTextWith, type UserSettingName, type UserSettingValue } from "../../model/user-settings.ts";

/** The languages Zulip offers, by code, with the name Zulip shows for each (in that language). */
const LANGUAGE_NAMES: ReadonlyMap<string, string> = new Map([
  ["ar", "العربيّة"], ["be", "беларуская"], ["bg", "български"], ["bn", "বাংলা"], ["ca", "català"],
  ["cs", "česky"], ["cy", "Cymraeg"], ["da", "dansk"], ["de", "Deutsch"], ["el", "Ελληνικά"],
  ["en", "English"], ["en-gb", "British English"], ["eo", "Esperanto"], ["es", "español"], ["fa", "فارسی"],
  ["fi", "suomi"], ["fr", "français"], ["gl", "galego"], ["gu", "ગુજરાતી"], ["hi", "हिंदी"],
  ["hu", "Magyar"], ["id", "Bahasa Indonesia"], ["it", "italiano"], ["ja", "日本語"], ["ko", "한국어"],
  ["lt", "Lietuviškai"], ["ml", "മലയാളം"], ["mn", "Монгол"], ["nl", "Nederlands"], ["no", "norsk"],
  ["pl", "polski"], ["pt", "Português"], ["pt-br", "Português Brasileiro"], ["pt-pt", "Português (Portugal)"],
  ["ro", "Română"], ["ru", "Русский"], ["si", "සිංහල"], ["sk", "Slovensky"], ["sr", "српски"],
  ["sv", "svenska"], ["ta", "தமிழ்"], ["te", "తెలుగు"], ["tl", "Tagalog"], ["tr", "Türkçe"],
  ["uk", "Українська"], ["uz", "oʻzbek tili"], ["vi", "Tiếng Việt"], ["zh-hans", "简体中文"], ["zh-hant", "繁體中文"],
]);

/** Whether Zulip offers this language code. */
export function isLanguageCode(code: string): boolean {
  return LANGUAGE_NAMES.has(code);
}

/** The name Zulip shows for a language code (the `language_name` of setting events). */
export function languageName(code: string): string {
  return LANGUAGE_NAMES.get(code) ?? code;
}

/** The notification sounds a user may choose besides "none" (the register snapshot lists them). */
const NOTIFICATION_SOUNDS: readonly string[] = ["chime", "ding", "zulip"];

/** Zulip's bound on the email notification batching period: one week. */
const MAX_BATCHING_PERIOD_SECONDS = 7 * 24 * 60 * 60;

/** The values Zulip checks beyond their types (its check_settings_values), in its order. */
export function checkSettingValues(input: { default_language?: string; notification_sound?: string; email_notifications_batching_period_seconds?: number }): void {
  if (input.default_language !== undefined && !isLanguageCode(input.default_language)) throw new JsonableError("Invalid default_language");
  const sound = input.notification_sound;
  if (sound !== undefined && sound !== "none" && !NOTIFICATION_SOUNDS.includes(sound)) throw new JsonableError(`Invalid notification sound '${sound}'`);
  const period = input.email_notifications_batching_period_seconds;
  if (period !== undefined && (period <= 0 || period > MAX_BATCHING_PERIOD_SECONDS)) {
    throw new JsonableError(`Invalid email batching period: ${period} seconds`);
  }
}

/** The IANA database's canonical zone names. */
const CANONICAL_ZONES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("timeZone"));

/**
 * Whether a time zone name is one the IANA database knows, spelled as it spells it: a canonical
 * name, or an alias ("US/Eastern", "UTC") ICU accepts whose parts start with a capital. ICU
 * matches names regardless of case; Zulip (zoneinfo files) does not.
 */
export function isTimeZone(name: string): boolean {
  if (CANONICAL_ZONES.has(name)) return true;
  if (!name.split("/").every((part) => /^[A-Z]/.test(part))) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The realm's stored defaults for new users, as setting values (unknown keys dropped). */
export async function realmUserDefaults(db: Db, realmId: number): Promise<Partial<Record<UserSettingName | "email_address_visibility", UserSettingValue>>> {
  const parsed: unknown = JSON.parse(await getRealmUserDefaults(db, realmId));
  const out: Partial<Record<UserSettingName | "email_address_visibility", UserSettingValue>> = {};
  if (parsed === null || typeof parsed !== "object") return out;
  for (const [key, value] of Object.entries(parsed)) {
    if ((isSettingName(key) || key === "email_address_visibility") && (typeof value === "boolean" || typeof value === "number" || typeof value === "string")) out[key] = value;
  }
  return out;
}

/**
 * The stored settings a new user or bot starts with: the realm's defaults for new users and its
 * default_language. Bots' addresses are always visible (Zulip: no privacy reason to hide them).
 */
export async function newUserSettings(db: Db, realm: RealmRow, isBot: boolean): Promise<{ settings: string; email_address_visibility: number }> {
  const { email_address_visibility: visibility, ...defaults } = await realmUserDefaults(db, realm.id);
  const settings = settingsTextWith("{}", { ...defaults, default_language: realmSettings(realm).default_language });
  const human = typeof visibility === "number" ? visibility : EMAIL_VISIBILITY.everyone;
  return { settings, email_address_visibility: isBot ? EMAIL_VISIBILITY.everyone : human };
}

