/** Table types of mobile push (listed in schema.ts's Database). */
import type { Generated, Selectable } from "kysely";

/** Zulip's PushDeviceToken.kind values. */
export const PUSH_TOKEN_KIND = { apns: 1, fcm: 2 } as const;
export type PushTokenKind = (typeof PUSH_TOKEN_KIND)[keyof typeof PUSH_TOKEN_KIND];

/** A device token a user's app registered (the legacy, non-E2EE protocol). */
export interface PushDeviceTokenTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  kind: PushTokenKind;
  /** APNs tokens are stored lower-cased (they are hex, compared without case). */
  token: string;
  /** The iOS app's bundle id (APNs only). */
  ios_app_id: string | null;
  /** UNIX seconds. */
  date_created: number;
  /**
   * The relay this token's registration was queued for (relayIdentity in actions/push/tokens.ts),
   * or null: stored while no relay was configured.
   */
  relay_id: string | null;
}

/**
 * An end-to-end encrypted registration (Zulip's PushDevice, FL 406): pending while
 * `bouncer_device_id` and `error_code` are null, active once the relay gave a device id, failed
 * with the relay's error code.
 */
export interface PushDeviceTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** "fcm" or "apns". */
  token_kind: string;
  /** The client's 64-bit id of the registration, as decimal text. */
  push_account_id: string;
  push_public_key: string;
  /** The relay's id of the device, as decimal text. */
  bouncer_device_id: string | null;
  error_code: string | null;
}

/** A call to the push relay waiting to be made (and retried until the relay answers). */
export interface PushRelayJobTable {
  id: Generated<number>;
  realm_id: number;
  /** The user whose registration the call is (E2EE registrations), else null. */
  user_id: number | null;
  /**
   * "register", "unregister", "e2ee/register" (form calls), "notify", "e2ee/notify" (JSON calls),
   * or "message": work of ours, deciding who is notified of the message `fields.message_id`.
   */
  call: string;
  /** The call's form fields or JSON body, as a JSON object. */
  fields: string;
  failed_tries: Generated<number>;
  /** When the job may next be tried, UNIX milliseconds (moved forward while a worker holds it). */
  due_at_ms: number;
}

/** A notification a user's phones show for a message (Zulip's active_mobile_push_notification flag). */
export interface PushActiveNotificationTable {
  realm_id: number;
  user_id: number;
  message_id: number;
}

export type PushDeviceTokenRow = Selectable<PushDeviceTokenTable>;
export type PushRelayJobRow = Selectable<PushRelayJobTable>;
export type PushDeviceRow = Selectable<PushDeviceTable>;
