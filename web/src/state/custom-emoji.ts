/**
 * The organization's custom emoji, for the custom emoji screen: the active ones with their
 * authors, adding one (an image and a name, for those the organization's
 * can_add_custom_emoji_group lets), and deactivating one (its author or an administrator).
 * Each change also refreshes the emoji the picker and autocomplete offer.
 */
import { signal } from "@preact/signals";
import { api } from "../api/client.ts";
import { organizationApi } from "../api/organization.ts";
import { ensureEmoji } from "./emoji.ts";
import { holdsRealmPermission } from "./groups.ts";
import { isAdmin, myRole, ROLE } from "./settings.ts";
import { me } from "./store.ts";

/** A custom emoji as the screen lists it. */
export type CustomEmoji = { id: string; name: string; url: string; authorId: number | null };

/** The active custom emoji, by name. */
export const customEmoji = signal<readonly CustomEmoji[]>([]);

/** Loads the custom emoji. */
export async function loadCustomEmoji(): Promise<void> {
  const all = Object.values((await api.realmEmoji()).emoji);
  customEmoji.value = all
    .filter((e) => !e.deactivated)
    .map((e) => ({ id: e.id, name: e.name, url: e.source_url, authorId: e.author_id ?? null }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Whether the user may add custom emoji. */
export function canAddEmoji(): boolean {
  return myRole.value !== ROLE.guest && holdsRealmPermission("can_add_custom_emoji_group");
}

/** Whether the user may deactivate an emoji: its author, or an administrator. */
export function canDeactivateEmoji(emoji: CustomEmoji): boolean {
  return isAdmin.value || (emoji.authorId !== null && emoji.authorId === me.value?.user_id);
}

/** Uploads an image as a custom emoji named `name`. */
export async function addEmoji(name: string, file: File): Promise<void> {
  await organizationApi.addEmoji(name, file);
  await Promise.all([loadCustomEmoji(), ensureEmoji(true)]);
}

/** Deactivates a custom emoji (messages that used it keep its image). */
export async function deactivateEmoji(name: string): Promise<void> {
  await organizationApi.deactivateEmoji(name);
  await Promise.all([loadCustomEmoji(), ensureEmoji(true)]);
}
