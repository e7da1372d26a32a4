/**
 * The organization's linkifiers (patterns the server turns into links as it renders messages),
 * for the linkifiers screen: everyone may list them, administrators add, change, delete and
 * reorder them. Loaded when the screen opens and again after each change.
 */
import { signal } from "@preact/signals";
import { organizationApi, type Linkifier } from "../api/organization.ts";

/** The linkifiers in the order the server applies them. */
export const linkifiers = signal<readonly Linkifier[]>([]);

/** Loads the linkifiers. */
export async function loadLinkifiers(): Promise<void> {
  linkifiers.value = (await organizationApi.linkifiers()).linkifiers;
}

/** Adds a linkifier after the others. */
export async function addLinkifier(pattern: string, urlTemplate: string): Promise<void> {
  await organizationApi.addLinkifier(pattern, urlTemplate);
  await loadLinkifiers();
}

/** Changes a linkifier's pattern and URL template. */
export async function changeLinkifier(id: number, pattern: string, urlTemplate: string): Promise<void> {
  await organizationApi.updateLinkifier(id, pattern, urlTemplate);
  await loadLinkifiers();
}

/** Deletes a linkifier. */
export async function deleteLinkifier(id: number): Promise<void> {
  await organizationApi.deleteLinkifier(id);
  await loadLinkifiers();
}

/** Moves a linkifier one place earlier (-1) or later (1) in the order the server applies them. */
export async function moveLinkifier(id: number, step: -1 | 1): Promise<void> {
  const ids = linkifiers.value.map((l) => l.id);
  const at = ids.indexOf(id);
  const to = at + step;
  if (at < 0 || to < 0 || to >= ids.length) return;
  [ids[at], ids[to]] = [ids[to], ids[at]];
  await organizationApi.reorderLinkifiers(ids);
  await loadLinkifiers();
}
