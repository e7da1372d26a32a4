/**
 * The administrators' "Export organization" screen: start a data export (public data, or also
 * the private data of members who consented), and the list of exports with who asked and when,
 * their status (kept current by realm_export events), a download link once written, and delete.
 */
import { useState } from "preact/hooks";
import type { RealmExport } from "../../api/exports.ts";
import { deleteExport, loadExports, realmExports, startExport } from "../../state/exports.ts";
import { users } from "../../state/store.ts";
import { ConfirmButton } from "../forms/ConfirmButton.tsx";
import { ActionStatus, useAction, useLoad } from "../forms/action.tsx";
import { fullTime } from "../format.ts";
import "./DataExports.css";

const EXPORT_TYPES = [
  { value: 1, label: "Public data", detail: "public channels' messages, users and settings" },
  { value: 2, label: "Standard", detail: "also private channels and direct messages of members who allow it" },
] as const;

function typeLabel(exportType: number): string {
  return EXPORT_TYPES.find((t) => t.value === exportType)?.label ?? `Type ${exportType}`;
}

function statusOf(e: RealmExport): string {
  if (e.deleted_timestamp !== null) return "Deleted";
  if (e.failed_timestamp !== null) return "Failed";
  if (e.pending) return "In progress";
  return "Complete";
}

function StartExport() {
  const [exportType, setExportType] = useState<number>(1);
  const action = useAction();
  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    await action.run(() => startExport(exportType), "Export started. It is listed below; its download link appears when it is ready.");
  }
  return (
    <form class="settings-form" aria-label="Start an export" onSubmit={submit}>
      <fieldset>
        <legend>Export type</legend>
        {EXPORT_TYPES.map((t) => (
          <label key={t.value} class="checkbox-label">
            <input type="radio" name="export-type" value={t.value} checked={exportType === t.value} onChange={() => setExportType(t.value)} />
            {t.label}
            <span class="export-type-detail">({t.detail})</span>
          </label>
        ))}
      </fieldset>
      <ActionStatus action={action} />
      <div class="button-row">
        <button type="submit" class="button-primary" disabled={action.busy}>
          Start export
        </button>
      </div>
    </form>
  );
}

function ExportRow({ item }: { item: RealmExport }) {
  const asker = users.value.get(item.acting_user_id)?.full_name ?? "Unknown user";
  const status = statusOf(item);
  return (
    <tr>
      <td>{asker}</td>
      <td>
        <time dateTime={new Date(item.export_time * 1000).toISOString()}>{fullTime(item.export_time)}</time>
      </td>
      <td>{typeLabel(item.export_type)}</td>
      <td class={`export-status export-status-${status.toLowerCase().replace(" ", "-")}`}>{status}</td>
      <td class="export-actions">
        {item.export_url !== null && (
          <>
            <a href={item.export_url} download aria-label={`Download export ${item.id}`}>
              Download
            </a>
            <ConfirmButton label={`Delete export ${item.id}`} question={`Delete export ${item.id}?`} detail="Its file is removed for good." confirmLabel="Yes, delete" run={() => deleteExport(item.id)} />
          </>
        )}
      </td>
    </tr>
  );
}

/** The screen. */
export function DataExportsScreen() {
  const loading = useLoad(loadExports);
  const list = realmExports.value;
  return (
    <>
      <section class="settings-form" aria-labelledby="export-title">
        <h3 id="export-title">Export organization</h3>
        <p class="settings-note">An export is built in the background; this page shows when it is ready. Only administrators can download it.</p>
        <StartExport />
      </section>
      <section class="settings-form data-exports" aria-labelledby="exports-title">
        <h3 id="exports-title">Exports</h3>
        <ActionStatus action={loading} />
        {list.length === 0 ? (
          <p class="settings-note">No exports yet.</p>
        ) : (
          <table class="admin-table" aria-labelledby="exports-title">
            <thead>
              <tr>
                <th scope="col">Requested by</th>
                <th scope="col">Time</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">File</th>
              </tr>
            </thead>
            <tbody>
              {list.map((e) => (
                <ExportRow key={e.id} item={e} />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
