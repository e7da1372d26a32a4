/**
 * POST /mobile_push/e2ee/test_notification (FL 420; Zulip's send_e2ee_test_push_notification): a
 * "test" notification to the caller's active E2EE registrations (one, with push_account_id),
 * encrypted per device and sent through the relay's remotes/push/e2ee/notify at once, the relay's
 * answer mapped to upstream's errors.
 */
import { HumanUsersOnlyError, JsonableError, NoActivePushDeviceError, PushNotConfiguredError } from "../../errors.ts";
import { activePushDevicesOf, deletePushDevicesByRelayIds } from "../../store/push.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { e2eePushRequests } from "./e2ee-requests.ts";
import { callRelay, type RelayOutcome } from "./relay-client.ts";

/** Relay codes that mean the server's setup needs an administrator (upstream's admin errors). */
const ADMIN_CODES = new Set(["MISSING_REMOTE_REALM", "INVALID_ZULIP_SERVER", "PUSH_NOTIFICATIONS_DISALLOWED"]);

/** Upstream's mapping of a failed notify call to the client's error. */
function relayError(outcome: Exclude<RelayOutcome, { kind: "ok" }>): JsonableError {
  if (outcome.kind === "retry") {
    return outcome.status === null
      ? new JsonableError("Network error while connecting to Zulip push notification service.", { code: "FAILED_TO_CONNECT_BOUNCER", status: 502 })
      : new JsonableError("Internal server error on Zulip push notification service, retry later.", { code: "INTERNAL_SERVER_ERROR_ON_BOUNCER", status: 502 });
  }
  if (outcome.code === null || ADMIN_CODES.has(outcome.code) || outcome.status < 400 || outcome.status >= 500) {
    return new JsonableError("Push notification configuration issue on server, contact the server administrator or retry later.", { code: "ADMIN_ACTION_REQUIRED", status: 403 });
  }
  return new JsonableError(outcome.msg);
}

/** POST /mobile_push/e2ee/test_notification. */
export async function sendTestNotification(ctx: AuthedCtx, pushAccountId: string | null): Promise<void> {
  if (ctx.actor.is_bot === 1) throw new HumanUsersOnlyError();
  const relay = ctx.config.pushRelay;
  if (relay === null) throw new PushNotConfiguredError();
  const devices = await activePushDevicesOf(ctx.db, ctx.realm.id, ctx.actor.id, pushAccountId);
  if (devices.length === 0) throw new NoActivePushDeviceError();
  const payload = { realm_url: ctx.config.externalUrl, realm_name: ctx.realm.name, user_id: ctx.actor.id, type: "test", time: Math.floor(ctx.clock.nowMs() / 1000) };
  const requests = await e2eePushRequests(devices, payload, "high");
  if (requests.length === 0) throw new NoActivePushDeviceError();
  const outcome = await callRelay(relay, "push/e2ee/notify", { json: { realm_uuid: ctx.realm.uuid, push_requests: requests } }, ctx.config.pushRelayTimeoutSeconds);
  if (outcome.kind !== "ok") {
    if (outcome.kind === "refused" && outcome.code !== null && ADMIN_CODES.has(outcome.code)) ctx.log.error({ code: outcome.code, msg: outcome.msg }, "push relay refused a notification: configuration issue");
    throw relayError(outcome);
  }
  // The relay names devices that are gone (uninstalled apps, expired tokens): forget them.
  const gone = Array.isArray(outcome.body.delete_device_ids) ? outcome.body.delete_device_ids.map(String) : [];
  if (gone.length > 0) await withTransaction(ctx, (tx) => deletePushDevicesByRelayIds(tx, ctx.realm.id, gone));
  if (devices.every((d) => gone.includes(d.bouncer_device_id ?? ""))) throw new NoActivePushDeviceError();
}
