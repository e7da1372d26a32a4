/**
 * The organization's data exports, for the administrators' export screen: loaded when it opens,
 * then kept current by the realm_export events (an export's progress comes only that way).
 */
import { signal } from "@preact/signals";
import { exportsApi, type RealmExport } from "../api/exports.ts";

/** The exports, newest first. */
export const realmExports = signal<readonly RealmExport[]>([]);

function show(list: readonly RealmExport[]): void {
  realmExports.value = [...list].sort((a, b) => b.id - a.id);
}

/** Loads the exports. */
export async function loadExports(): Promise<void> {
  show((await exportsApi.list()).exports);
}

/** A realm_export event: the exports as they now stand. */
export function applyRealmExports(list: readonly RealmExport[]): void {
  show(list);
}

/** Starts an export of the given type (1 public, 2 with members' consent). */
export async function startExport(exportType: number): Promise<void> {
  await exportsApi.start(exportType);
  await loadExports();
}

/** Deletes an export's file. */
export async function deleteExport(id: number): Promise<void> {
  await exportsApi.remove(id);
  await loadExports();
}
