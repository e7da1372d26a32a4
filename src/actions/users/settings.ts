/**
 * PATCH /settings (and its legacy aliases /settings/display and /settings/notifications): the
 * caller's personal settings and account fields (Zulip's json_change_settings and
 * do_change_user_setting). A new email address is mailed a confirmation link, and changes once
 * it is opened (email-change.ts).
 */
import { JsonableError } from "../../errors.ts";
import { realmUserUpdateEvent } from "../../events/kinds/users.ts";
import { updateDisplaySettingsEvent, updateGlobalNotificationsEvent, userSettingsUpdateEvent } from "../../events/kinds/user-settings.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { canSeeDeliveryEmail } from "../../permissions/email-visibility.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { usersWhoCanAccess } from "../../permissions/user-access.ts";
import { avatarUrl } from "../../present/users.ts";
import { hashPassword, verifyPassword } from "../../secrets.ts";
import { deleteUserDrafts } from "../../store/messages/drafts.ts";
import { apiEmail, emailDomain, EMAIL_VISIBILITY } from "../../model/emails.ts";
import type { UserRow, UserUpdate } from "../../store/schema/database.ts";
import { deleteUserSessions } from "../../store/users/sessions.ts";
import { lockUser } from "../../store/users/settings.ts";
import type { Db } from "../../store/schema/types.ts";
import {
  isSettingName,
  LEGACY_DISPLAY_SETTINGS,
  LEGACY_NOTIFICATION_SETTINGS,
  settingsTextWith,
  userSetting,
  type UserSettingName,
  type UserSettingValue,
} from "../../model/user-settings.ts";
import { activeNameTaken, updateUser } from "../../store/users/users.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { checkFullName } from "./accounts.ts";
import { emitExportConsent } from "./export-consent.ts";
import { doUpdatePresenceEnabled, type PresenceWrites } from "./presence.ts";
import type { RateLimiter, RateLimitRules } from "../../rate-limit.ts";
import { checkEmailChange, doStartEmailChange } from "./email-change.ts";
import { checkSettingValues, languageName } from "./setting-rules.ts";
import { doChangeFullName } from "./update.ts";

/** Settings kept as user columns rather than in the settings JSON. */
type ColumnSetting = "timezone" | "email_address_visibility";

/** A setting PATCH /settings may change. */
type SettingName = UserSettingName | ColumnSetting;

/** What PATCH /settings accepts (wire names); absent keys are left alone. */
export type SettingsInput = Partial<Record<SettingName, UserSettingValue>> & {
  full_name?: string;
  email?: string;
  old_password?: string;
  new_password?: string;
};

/** Zulip's password floor (PASSWORD_MIN_LENGTH, as POST /users uses); there is no strength estimator here. */
const PASSWORD_MIN_LENGTH = 6;

/** Changes the caller's settings and account fields; everything is checked before anything is written. */
export async function updateSettings(ctx: AuthedCtx, services: PresenceWrites & { loginLimiter: RateLimiter; accountLimits: { emailChangeByUser: RateLimitRules } }, input: SettingsInput): Promise<Record<string, never>> {
  const { actor } = ctx;
  if (actor.is_bot === 1) throw new JsonableError("This endpoint does not accept bot requests.");
  checkSettingValues({
    default_language: stringOf(input.default_language),
    notification_sound: stringOf(input.notification_sound),
    email_notifications_batching_period_seconds: numberOf(input.email_notifications_batching_period_seconds),
  });
  const passwordHash = input.new_password === undefined ? null : await checkPasswordChange(ctx, services.loginLimiter, input.old_password ?? "", input.new_password);
  const newEmail = input.email === undefined ? null : await checkEmailChange(ctx, services.accountLimits.emailChangeByUser, input.email.trim());
  const fullName = await checkNameChange(ctx, input.full_name);
  await withTransaction(ctx, async (tx, emit) => {
    const env = { presenceWrites: services.presenceWrites, ...doEnv(ctx, emit) };
    let user = await lockUser(tx, ctx.realm.id, actor.id);
    if (passwordHash !== null) {
      user = await updateUser(tx, ctx.realm.id, user.id, { password_hash: passwordHash });
      // The user's other browsers are logged out; the one that made the change stays (Zulip's update_session_auth_hash).
      await deleteUserSessions(tx, ctx.realm.id, [user.id], ctx.session);
    }
    if (fullName !== null && fullName !== user.full_name) {
      await doChangeFullName(tx, env, user, fullName, (await usersWhoCanAccess(tx, ctx.realm, user)).map((u) => u.id));
      user = { ...user, full_name: fullName };
    }
    await doChangeUserSettings(tx, env, user, changedSettings(user, input));
    if (newEmail !== null) await doStartEmailChange(tx, env, user, newEmail);
  });
  return {};
}

function stringOf(value: UserSettingValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function numberOf(value: UserSettingValue | undefined): number | undefined {
  return typeof value === "number" ? value : undefined;
}

/**
 * Checks the old password and the new one's length and returns the new hash. Failures count
 * toward the same per-address limit as password logins (Zulip's authenticate), and a success
 * clears it, as Zulip's do_change_password does.
 */
async function checkPasswordChange(ctx: AuthedCtx, loginLimiter: RateLimiter, oldPassword: string, newPassword: string): Promise<string> {
  const key = `${ctx.realm.id}:${ctx.actor.delivery_email.toLowerCase()}`;
  const state = await loginLimiter.peek(key);
  if (state?.limited) throw new JsonableError(`You're making too many attempts! Try again in ${state.retryAfterSeconds} seconds.`);
  if (!(await verifyPassword(oldPassword, ctx.actor.password_hash))) {
    await loginLimiter.consume(key);
    throw new JsonableError("Wrong password!");
  }
  if (newPassword.length < PASSWORD_MIN_LENGTH) throw new JsonableError("New password is too weak!");
  await loginLimiter.reset(key);
  return hashPassword(newPassword);
}

/**
 * The new full name to store, or null for none: an unchanged name, or a change the realm's
 * name_changes_disabled refuses to a non-administrator, is ignored silently, as Zulip does.
 */
async function checkNameChange(ctx: AuthedCtx, raw: string | undefined): Promise<string | null> {
  const { actor, realm } = ctx;
  if (raw === undefined || raw === actor.full_name) return null;
  if (realmSettings(realm).name_changes_disabled && !isRealmAdmin(actor)) return null;
  const name = checkFullName(raw);
  if (realmSettings(realm).require_unique_names && name !== actor.full_name && (await activeNameTaken(ctx.db, realm.id, name))) {
    throw new JsonableError("Unique names required in this organization.");
  }
  return name;
}

/** The user's current value of a setting. */
function currentValue(user: UserRow, name: SettingName): unknown {
  if (name === "timezone") return user.timezone;
  if (name === "email_address_visibility") return user.email_address_visibility;
  return userSetting(user, name);
}

/** The requested settings whose value differs from the user's, in Zulip's order (timezone last). */
function changedSettings(user: UserRow, input: SettingsInput): Array<[SettingName, UserSettingValue]> {
  const names = Object.keys(input).filter((name): name is SettingName => (isSettingName(name) || name === "email_address_visibility"));
  names.sort();
  if (input.timezone !== undefined) names.push("timezone");
  const out: Array<[SettingName, UserSettingValue]> = [];
  for (const name of names) {
    const value = input[name];
    if (value !== undefined && currentValue(user, name) !== value) out.push([name, value]);
  }
  return out;
}

/**
 * Writes personal settings of a user and announces each (Zulip's do_change_user_setting): the
 * user_settings event, its legacy form, and what others see change (time zone, email address).
 */
export async function doChangeUserSettings(
  tx: Db,
  env: Pick<DoEnv, "realm" | "clock" | "config" | "emit"> & PresenceWrites,
  user: UserRow,
  changes: ReadonlyArray<[SettingName, UserSettingValue]>,
): Promise<void> {
  if (changes.length === 0) return;
  const patch: UserUpdate = {};
  const jsonChanges: Partial<Record<UserSettingName, UserSettingValue>> = {};
  for (const [name, value] of changes) {
    if (name === "timezone") patch.timezone = String(value);
    else if (name === "email_address_visibility") patch.email_address_visibility = Number(value);
    else jsonChanges[name] = value;
  }
  if (Object.keys(jsonChanges).length > 0) patch.settings = settingsTextWith(user.settings, jsonChanges);
  const updated = await updateUser(tx, env.realm.id, user.id, patch);
  const host = emailDomain(env.config.externalUrl);
  for (const [name, value] of changes) {
    announceSetting(env, updated, apiEmail(updated, host), name, value);
    if (name === "timezone") {
      const viewers = (await usersWhoCanAccess(tx, env.realm, updated)).map((u) => u.id);
      env.emit(realmUserUpdateEvent(user.id, { email: apiEmail(updated, host), timezone: updated.timezone }), viewers);
    }
    if (name === "email_address_visibility") await announceEmailVisibility(tx, env, user, updated);
    if (name === "enable_drafts_synchronization" && value === false) {
      // Synchronization stopped; clients keep their local copies, so no events (as Zulip).
      await deleteUserDrafts(tx, env.realm.id, user.id);
    }
    if (name === "presence_enabled") await doUpdatePresenceEnabled(tx, env, updated, value === true);
    if (name === "allow_private_data_export") await emitExportConsent(tx, env.realm.id, updated, env.emit);
  }
}

/** The user_settings event and, for settings older than FL 89, the legacy event of the same change. */
function announceSetting(env: Pick<DoEnv, "emit">, user: UserRow, email: string, name: SettingName, value: UserSettingValue): void {
  const language = name === "default_language" ? languageName(String(value)) : undefined;
  env.emit(userSettingsUpdateEvent(name, value, language), [user.id]);
  if (LEGACY_NOTIFICATION_SETTINGS.includes(name)) env.emit(updateGlobalNotificationsEvent(email, name, value), [user.id]);
  if (LEGACY_DISPLAY_SETTINGS.includes(name)) env.emit(updateDisplaySettingsEvent(email, name, value, language), [user.id]);
}

/**
 * Tells the users who can access `before` what its new email_address_visibility changes for
 * them: the real address appears or disappears per viewer, and the API email (with the avatar,
 * which clients derive from it) when the address stops or starts being public.
 */
async function announceEmailVisibility(tx: Db, env: Pick<DoEnv, "realm" | "config" | "emit">, before: UserRow, after: UserRow): Promise<void> {
  const viewers = await usersWhoCanAccess(tx, env.realm, after);
  const shown: number[] = [];
  const hidden: number[] = [];
  for (const viewer of viewers) {
    const could = canSeeDeliveryEmail(viewer, before);
    const can = canSeeDeliveryEmail(viewer, after);
    if (could !== can) (can ? shown : hidden).push(viewer.id);
  }
  env.emit(realmUserUpdateEvent(after.id, { delivery_email: after.delivery_email }), shown);
  env.emit(realmUserUpdateEvent(after.id, { delivery_email: null }), hidden);
  const everyone = EMAIL_VISIBILITY.everyone;
  if (before.email_address_visibility !== everyone && after.email_address_visibility !== everyone) return;
  const ids = viewers.map((u) => u.id);
  env.emit(realmUserUpdateEvent(after.id, { new_email: apiEmail(after, emailDomain(env.config.externalUrl)) }), ids);
  const avatar = { avatar_source: after.avatar_source, avatar_url: avatarUrl(after), avatar_url_medium: avatarUrl(after, true), avatar_version: after.avatar_version };
  env.emit(realmUserUpdateEvent(after.id, avatar), ids);
}
