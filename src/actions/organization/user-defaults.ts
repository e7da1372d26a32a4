/**
 * PATCH /realm/user_settings_defaults: the personal settings users created from now on start
 * with (Zulip's update_realm_user_settings_defaults); existing users keep theirs.
 */
import { AdministratorRequiredError } from "../../errors.ts";
import { realmUserSettingsDefaultsEvent } from "../../events/kinds/user-settings.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { EMAIL_VISIBILITY } from "../../model/emails.ts";
import { lockRealmUserDefaults, setRealmUserDefaults } from "../../store/users/settings.ts";
import { USER_SETTING_DEFAULTS, type UserSettingName, type UserSettingValue } from "../../model/user-settings.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { checkSettingValues } from "../users/setting-rules.ts";

/** A setting the defaults may hold. */
type DefaultName = UserSettingName | "email_address_visibility";

/**
 * What PATCH /realm/user_settings_defaults accepts (wire names; the route takes every personal
 * setting but login and marketing emails, the export permission and the language, as Zulip);
 * absent keys are left alone.
 */
export type UserDefaultsInput = Partial<Record<DefaultName, UserSettingValue>>;

/** Zulip's default of a setting the defaults may hold. */
function baseline(name: DefaultName): UserSettingValue {
  return name === "email_address_visibility" ? EMAIL_VISIBILITY.everyone : USER_SETTING_DEFAULTS[name];
}

/** Changes the realm's defaults for new users and tells everyone each change. */
export async function updateRealmUserDefaults(ctx: AuthedCtx, input: UserDefaultsInput): Promise<Record<string, never>> {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
  checkSettingValues({
    notification_sound: typeof input.notification_sound === "string" ? input.notification_sound : undefined,
    email_notifications_batching_period_seconds:
      typeof input.email_notifications_batching_period_seconds === "number" ? input.email_notifications_batching_period_seconds : undefined,
  });
  const names = (Object.keys(input) as DefaultName[]).filter((name) => input[name] !== undefined).sort();
  await withTransaction(ctx, async (tx, emit) => {
    const parsed: unknown = JSON.parse(await lockRealmUserDefaults(tx, ctx.realm.id));
    const stored: Record<string, unknown> = parsed !== null && typeof parsed === "object" ? { ...parsed } : {};
    const changed: Array<[DefaultName, UserSettingValue]> = [];
    for (const name of names) {
      const value = input[name];
      if (value === undefined || (stored[name] ?? baseline(name)) === value) continue;
      // Only values that differ from Zulip's defaults are kept.
      if (value === baseline(name)) delete stored[name];
      else stored[name] = value;
      changed.push([name, value]);
    }
    if (changed.length === 0) return;
    await setRealmUserDefaults(tx, ctx.realm.id, JSON.stringify(stored));
    const everyone = await activeUserIds(tx, ctx.realm.id);
    for (const [name, value] of changed) emit(realmUserSettingsDefaultsEvent(name, value), everyone);
  });
  return {};
}
