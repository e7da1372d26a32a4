/**
 * The relay calls that carry one user's notification (a new message or a removal), as job rows:
 * remotes/push/notify with the legacy FCM and APNs payloads for the user's tokens, and
 * remotes/push/e2ee/notify with the payload sealed per E2EE registration. The relay worker
 * (relay-worker.ts) makes the calls.
 */
import type { Insertable } from "kysely";
import type { UserPhones } from "../../store/push/push-notifications.ts";
import { PUSH_TOKEN_KIND, type PushRelayJobTable } from "../../store/schema/push.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import { e2eePushRequests, type PushPriority } from "./e2ee-requests.ts";

/** What each kind of phone receives. */
export type NotificationPayloads = { apns: Record<string, unknown>; fcm: Record<string, unknown>; e2ee: Record<string, unknown> };

/** The calls that carry `payloads` to the user's phones, due at `dueAtMs`. */
export async function notifyCallRows(
  realm: Pick<RealmRow, "id" | "uuid">,
  user: Pick<UserRow, "id" | "uuid">,
  phones: UserPhones,
  payloads: NotificationPayloads,
  priority: PushPriority,
  dueAtMs: number,
): Promise<Array<Insertable<PushRelayJobTable>>> {
  const rows: Array<Insertable<PushRelayJobTable>> = [];
  if (phones.tokens.length > 0) {
    const body = {
      user_uuid: user.uuid,
      user_id: user.id,
      realm_uuid: realm.uuid,
      apns_payload: payloads.apns,
      gcm_payload: payloads.fcm,
      gcm_options: { priority },
      android_devices: phones.tokens.filter((t) => t.kind === PUSH_TOKEN_KIND.fcm).map((t) => t.token),
      apple_devices: phones.tokens.filter((t) => t.kind === PUSH_TOKEN_KIND.apns).map((t) => t.token),
    };
    rows.push({ realm_id: realm.id, user_id: user.id, call: "notify", fields: JSON.stringify(body), due_at_ms: dueAtMs });
  }
  const requests = await e2eePushRequests(phones.devices, payloads.e2ee, priority);
  if (requests.length > 0) {
    rows.push({ realm_id: realm.id, user_id: user.id, call: "e2ee/notify", fields: JSON.stringify({ realm_uuid: realm.uuid, push_requests: requests }), due_at_ms: dueAtMs });
  }
  return rows;
}
