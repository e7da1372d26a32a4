/**
 * One device's entry of a remotes/push/e2ee/notify call (shared/research/push-e2ee.md §2.3): the
 * payload sealed to the device (encrypt.ts) in the FCM or APNs shape. A new message or a test is
 * sent at high priority as an alert; a removal at normal priority, in the background.
 */
import type { PushDeviceRow } from "../../store/schema/push.ts";
import { sealForDevice } from "./encrypt.ts";

export type PushPriority = "high" | "normal";

/** The device's entry, or null when its key cannot seal (not a 32-byte key). */
export async function e2eePushRequest(device: PushDeviceRow, payload: unknown, priority: PushPriority): Promise<Record<string, unknown> | null> {
  const encrypted = await sealForDevice(device.push_public_key, payload);
  if (encrypted === null) return null;
  const deviceId = Number(device.bouncer_device_id);
  const accountId = Number(device.push_account_id);
  if (device.token_kind === "apns") {
    const high = priority === "high";
    return {
      device_id: deviceId,
      http_headers: { apns_priority: high ? 10 : 5, apns_push_type: high ? "alert" : "background" },
      payload: { push_account_id: accountId, encrypted_data: encrypted, aps: { "mutable-content": 1, alert: { title: "New notification" } } },
    };
  }
  return { device_id: deviceId, fcm_priority: priority, payload: { push_account_id: accountId, encrypted_data: encrypted } };
}

/** The entries of every device whose key can seal. */
export async function e2eePushRequests(devices: readonly PushDeviceRow[], payload: unknown, priority: PushPriority): Promise<Array<Record<string, unknown>>> {
  const requests = await Promise.all(devices.map((d) => e2eePushRequest(d, payload, priority)));
  return requests.filter((r): r is Record<string, unknown> => r !== null);
}
