/** API shapes of push registrations (the register snapshot's `push_devices`). */
import type { PushDeviceRow } from "../store/schema/push.ts";

/** A registration's state as clients see it (Zulip's PushDevice.status). */
export type PushDeviceStatus = "active" | "pending" | "failed";

/** Zulip's PushDevice.status: failed with an error code, pending until the relay gave a device id, else active. */
export function pushDeviceStatus(row: Pick<PushDeviceRow, "bouncer_device_id" | "error_code">): PushDeviceStatus {
  if (row.error_code !== null) return "failed";
  return row.bouncer_device_id === null ? "pending" : "active";
}

/** `push_devices`: every registration of the user, keyed by push_account_id as text. */
export function presentPushDevices(rows: readonly PushDeviceRow[]): Record<string, { status: PushDeviceStatus; error_code: string | null }> {
  const out: Record<string, { status: PushDeviceStatus; error_code: string | null }> = {};
  for (const row of rows) out[row.push_account_id] = { status: pushDeviceStatus(row), error_code: row.error_code };
  return out;
}
