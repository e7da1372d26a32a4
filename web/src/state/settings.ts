/**
 * The settings screen's state: which screen is open, the signed-in user's role, and the changes
 * to the user's own account and settings. Changes go to PATCH /settings; the server's events
 * (user_settings, realm_user) then update the store for every tab, this one included.
 */
import { computed, signal } from "@preact/signals";
import { manageApi } from "../api/manage.ts";
import type { UserSettings } from "../api/types.ts";
import { me, settings, users } from "./store.ts";

/** Zulip's role values. */
export const ROLE = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 } as const;

/** The screens of the settings dialog: the user's own, then the administrators'. */
export type Screen = "profile" | "notifications" | "display" | "organization" | "channels" | "users" | "exports" | "invite" | "groups" | "linkifiers" | "emoji";

/** The open screen, or null when the dialog is closed. */
export const openScreen = signal<Screen | null>(null);

/** The signed-in user's role (from the user list, so a role change applies at once). */
export const myRole = computed(() => {
  const id = me.value?.user_id;
  return (id === undefined ? undefined : users.value.get(id)?.role) ?? ROLE.member;
});

/** Whether the signed-in user is an administrator or owner (the server still checks every call). */
export const isAdmin = computed(() => myRole.value <= ROLE.administrator);

/** Opens the settings dialog on a screen. */
export function openSettings(screen: Screen = "profile"): void {
  openScreen.value = screen;
}

/** Closes the settings dialog. */
export function closeSettings(): void {
  openScreen.value = null;
}

/** The boolean settings the settings screens switch. */
export type BooleanSetting = {
  [K in keyof UserSettings]-?: UserSettings[K] extends boolean | undefined ? K : never;
}[keyof UserSettings];

/** Saves one of the user's settings; applied here at once (the event confirms it). */
export async function saveSetting<K extends keyof UserSettings>(name: K, value: UserSettings[K]): Promise<void> {
  await manageApi.updateSettings({ [name]: value });
  settings.value = { ...settings.value, [name]: value };
}

/** Switches `enter_sends` from the compose box: applied here at once, saved behind (a failure is left to the next register). */
export function setEnterSends(value: boolean): void {
  settings.value = { ...settings.value, enter_sends: value };
  void manageApi.updateSettings({ enter_sends: value }).catch(() => undefined);
}

/** Changes the user's name (the server checks it and announces it to everyone). */
export async function changeFullName(fullName: string): Promise<void> {
  await manageApi.updateSettings({ full_name: fullName });
  const user = me.value;
  if (user !== null) me.value = { ...user, full_name: fullName.trim() };
}

/** Changes the user's password; the server checks the old one. */
export async function changePassword(oldPassword: string, newPassword: string): Promise<void> {
  await manageApi.updateSettings({ old_password: oldPassword, new_password: newPassword });
}
