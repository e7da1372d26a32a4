/** `push_device` events (FL 406): an E2EE registration's relay outcome, to its user's queues. */

import type { PushDeviceStatus } from "../../present/push.ts";

export type PushDeviceEvent = { type: "push_device"; push_account_id: string; status: PushDeviceStatus; error_code?: string };

/** The relay took the registration, or refused it with `errorCode`. */
export function pushDeviceEvent(pushAccountId: string, status: PushDeviceStatus, errorCode?: string): PushDeviceEvent {
  return errorCode === undefined ? { type: "push_device", push_account_id: pushAccountId, status } : { type: "push_device", push_account_id: pushAccountId, status, error_code: errorCode };
}
