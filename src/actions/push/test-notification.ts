/**
 * Test notifications, as the apps ask for them from their settings:
 * - POST /mobile_push/e2ee/test_notification (FL 420; Zulip's send_e2ee_test_push_notification):
 *   a "test" notification to the caller's active E2EE registrations (one, with push_account_id),
 *   encrypted per device and sent through the relay's remotes/push/e2ee/notify at once, the
 *   relay's answer mapped to upstream's errors;
 * - POST /mobile_push/test_notification (FL 217, legacy tokens; Zulip's
 *   send_test_push_notification_api): for the named token, or every token of the caller, the
 *   relay's remotes/push/test_notification, which builds the notification itself from the base
 *   payload; without a relay nothing is sent, as upstream drops it with nothing configured.
 */
import { HumanUsersOnlyError, InvalidPushDeviceTokenError, InvalidRemotePushDeviceTokenError, JsonableError, NoActivePushDeviceError } from "../../errors.ts";
import { legacyBasePayload } from "../../present/push-payloads.ts";
import { activePushDevicesOf, deletePushDevicesByRelayIds, pushDeviceTokensNamed, pushDeviceTokensOf } from "../../store/push/push.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { e2eePushRequests } from "./e2ee-requests.ts";
import { callRelay, type RelayOutcome } from "./relay-client.ts";

/** Relay codes that mean the server's setup needs an administrator (upstream's admin errors). */
const ADMIN_CODES = new Set(["MISSING_REMOTE_REALM", "INVALID_ZULIP_SERVER", "PUSH_NOTIFICATIONS_DISALLOWED"]);

const adminActionRequired = () =>
  new JsonableError("Push notification configuration issue on server, contact the server administrator or retry later.", { code: "ADMIN_ACTION_REQUIRED", status: 403 });

type Failed = Exclude<RelayOutcome, { kind: "ok" }>;

/** Upstream's mapping of a failed E2EE notify call to the client's error. */
function e2eeRelayError(outcome: Failed): JsonableError {
  if (outcome.kind === "retry") {
    return outcome.status === null
      ? new JsonableError("Network error while connecting to Zulip push notification service.", { code: "FAILED_TO_CONNECT_BOUNCER", status: 502 })
      : new JsonableError("Internal server error on Zulip push notification service, retry later.", { code: "INTERNAL_SERVER_ERROR_ON_BOUNCER", status: 502 });
  }
  if (outcome.code === null || ADMIN_CODES.has(outcome.code) || outcome.status < 400 || outcome.status >= 500) return adminActionRequired();
  return new JsonableError(outcome.msg);
}

/**
 * Upstream's send_to_push_bouncer errors as the legacy test call passes them on: a network error
 * or a 5xx as a 502 in its words; the relay not knowing the token as its own code; another
 * refusal in the relay's words. What upstream answers with a 500 (bad server credentials, push
 * disallowed, an unexpected status) is the administrator's to fix.
 */
function legacyRelayError(outcome: Failed): JsonableError {
  if (outcome.kind === "retry") {
    if (outcome.status === null) {
      const kind = outcome.reason.startsWith("no answer within") ? "Timeout" : "ConnectionError";
      return new JsonableError(`${kind} while trying to connect to push notification bouncer`, { status: 502 });
    }
    if (outcome.status >= 500) return new JsonableError(`Received ${outcome.status} from push notification bouncer`, { status: 502 });
    return adminActionRequired();
  }
  if (outcome.code === "INVALID_REMOTE_PUSH_DEVICE_TOKEN") return new InvalidRemotePushDeviceTokenError();
  if (outcome.code === "INVALID_ZULIP_SERVER" || outcome.code === "PUSH_NOTIFICATIONS_DISALLOWED" || outcome.status < 400 || outcome.status >= 500) return adminActionRequired();
  return new JsonableError(outcome.msg);
}

/** POST /mobile_push/e2ee/test_notification: no device is the first error (SPEC), before any relay concern. */
export async function sendTestNotification(ctx: AuthedCtx, pushAccountId: string | null): Promise<void> {
  if (ctx.actor.is_bot === 1) throw new HumanUsersOnlyError();
  const devices = await activePushDevicesOf(ctx.db, ctx.realm.id, ctx.actor.id, pushAccountId);
  if (devices.length === 0) throw new NoActivePushDeviceError();
  const relay = ctx.config.pushRelay;
  if (relay === null) {
    // Registrations made while a relay was configured, which has been removed since.
    ctx.log.warn("E2EE test notification asked for, but no push relay is configured");
    throw adminActionRequired();
  }
  const payload = { realm_url: ctx.config.externalUrl, realm_name: ctx.realm.name, user_id: ctx.actor.id, type: "test", time: Math.floor(ctx.clock.nowMs() / 1000) };
  const requests = await e2eePushRequests(devices, payload, "high");
  if (requests.length === 0) throw new NoActivePushDeviceError();
  const outcome = await callRelay(relay, "push/e2ee/notify", { json: { realm_uuid: ctx.realm.uuid, push_requests: requests } }, ctx.config.pushRelayTimeoutSeconds);
  if (outcome.kind !== "ok") {
    if (outcome.kind === "refused" && outcome.code !== null && ADMIN_CODES.has(outcome.code)) ctx.log.error({ code: outcome.code, msg: outcome.msg }, "push relay refused a notification: configuration issue");
    throw e2eeRelayError(outcome);
  }
  // The relay names devices that are gone (uninstalled apps, expired tokens): forget them.
  const gone = Array.isArray(outcome.body.delete_device_ids) ? outcome.body.delete_device_ids.map(String) : [];
  if (gone.length > 0) await withTransaction(ctx, (tx) => deletePushDevicesByRelayIds(tx, ctx.realm.id, gone));
  if (devices.every((d) => gone.includes(d.bouncer_device_id ?? ""))) throw new NoActivePushDeviceError();
}

/**
 * POST /mobile_push/test_notification: the named token must be the caller's (as registered, or
 * as an APNs token is kept, lower-cased); the relay is asked once per token, in order, and its
 * first failure is the answer.
 */
export async function sendLegacyTestNotification(ctx: AuthedCtx, token: string | null): Promise<void> {
  if (ctx.actor.is_bot === 1) throw new HumanUsersOnlyError();
  const tokens = token === null ? await pushDeviceTokensOf(ctx.db, ctx.realm.id, ctx.actor.id) : await pushDeviceTokensNamed(ctx.db, ctx.realm.id, ctx.actor.id, [token, token.toLowerCase()]);
  if (token !== null && tokens.length === 0) throw new InvalidPushDeviceTokenError();
  const relay = ctx.config.pushRelay;
  if (relay === null) {
    ctx.log.info({ devices: tokens.length }, "test notification not sent: no push relay is configured");
    return;
  }
  const basePayload = legacyBasePayload({ id: ctx.realm.id, name: ctx.realm.name, siteUrl: ctx.config.externalUrl }, ctx.actor.id);
  for (const device of tokens) {
    const body = { realm_uuid: ctx.realm.uuid, user_uuid: ctx.actor.uuid, user_id: ctx.actor.id, token: device.token, token_kind: device.kind, base_payload: basePayload };
    const outcome = await callRelay(relay, "push/test_notification", { json: body }, ctx.config.pushRelayTimeoutSeconds);
    if (outcome.kind !== "ok") throw legacyRelayError(outcome);
  }
}
