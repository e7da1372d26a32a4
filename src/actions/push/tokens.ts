/**
 * The legacy push registration the real Zulip app uses at this feature level (Zulip's
 * add_push_device_token / remove_push_device_token, views apns_device_token and
 * android_gcm_reg_id): the app posts its APNs or FCM token; Parley stores it and has the push
 * relay register it (remotes/push/register), or unregister it, off the request path
 * (relay-worker.ts), retried until the relay answers.
 */
import { HumanUsersOnlyError, JsonableError, PushNotConfiguredError } from "../../errors.ts";
import { deletePushDeviceToken, insertPushDeviceToken, insertPushRelayJob } from "../../store/push.ts";
import { PUSH_TOKEN_KIND, type PushTokenKind } from "../../store/schema-push.ts";
import type { Db } from "../../store/types.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { relayCallQueued } from "./relay-signal.ts";

/** Zulip's bound on a token's length. */
const MAX_TOKEN_LENGTH = 4096;
/** Zulip's ApnsAppId: a bundle id. */
const APP_ID = /^[.a-zA-Z0-9-]+$/;

/** A token call's subject: which kind, the token, and (APNs) the app. */
export type PushTokenInput = { kind: "apns" | "fcm"; token: string; appId?: string };

/** Push calls need a human caller and a configured relay, in Zulip's order. */
function checkCaller(ctx: AuthedCtx): void {
  if (ctx.actor.is_bot === 1) throw new HumanUsersOnlyError();
  if (ctx.config.pushRelay === null) throw new PushNotConfiguredError();
}

/**
 * Zulip's validate_token: 1 to 4,096 characters; an APNs token must be hex (spaces allowed, as
 * Python's bytes.fromhex), and is kept lower-cased since APNs tokens compare without case.
 */
function checkedToken(kind: PushTokenKind, raw: string): string {
  if (raw.length === 0 || raw.length > MAX_TOKEN_LENGTH) throw new JsonableError("Empty or invalid length token");
  if (kind !== PUSH_TOKEN_KIND.apns) return raw;
  const hex = raw.replace(/ /g, "");
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new JsonableError("Invalid APNS token");
  return raw.toLowerCase();
}

/** The relay's form fields naming the user and the token (Zulip's add_push_device_token). */
function relayFields(ctx: AuthedCtx, kind: PushTokenKind, token: string, appId: string | null): Record<string, string> {
  const fields: Record<string, string> = {
    server_uuid: ctx.config.pushRelay?.orgId ?? "",
    user_uuid: ctx.actor.uuid ?? "",
    realm_uuid: ctx.realm.uuid ?? "",
    user_id: String(ctx.actor.id),
    token,
    token_kind: String(kind),
  };
  if (appId !== null) fields.ios_app_id = appId;
  return fields;
}

/** Queues a relay call in `tx`, due now. */
async function doQueueRelayCall(tx: Db, ctx: AuthedCtx, call: "register" | "unregister", fields: Record<string, string>): Promise<void> {
  await insertPushRelayJob(tx, { realm_id: ctx.realm.id, call, fields: JSON.stringify(fields), due_at_ms: ctx.clock.nowMs() });
}

/** POST /users/me/apns_device_token and /users/me/android_gcm_reg_id: stores the token (idempotent) and has the relay register it. */
export async function addPushToken(ctx: AuthedCtx, input: PushTokenInput): Promise<void> {
  checkCaller(ctx);
  const kind = PUSH_TOKEN_KIND[input.kind];
  const token = checkedToken(kind, input.token);
  const appId = kind === PUSH_TOKEN_KIND.apns ? (input.appId ?? "") : null;
  if (appId !== null && !APP_ID.test(appId)) throw new JsonableError("Invalid app ID");
  await withTransaction(ctx, async (tx) => {
    await insertPushDeviceToken(tx, { realm_id: ctx.realm.id, user_id: ctx.actor.id, kind, token, ios_app_id: appId, date_created: Math.floor(ctx.clock.nowMs() / 1000) });
    // Registered again even when known: the relay's copy may have expired (as upstream, which always calls it).
    await doQueueRelayCall(tx, ctx, "register", relayFields(ctx, kind, token, appId));
  });
  relayCallQueued();
}

/** DELETE of those: forgets the token and has the relay forget it (upstream calls the relay even for a token it did not know). */
export async function removePushToken(ctx: AuthedCtx, input: PushTokenInput): Promise<void> {
  checkCaller(ctx);
  const kind = PUSH_TOKEN_KIND[input.kind];
  const token = checkedToken(kind, input.token);
  await withTransaction(ctx, async (tx) => {
    await deletePushDeviceToken(tx, ctx.actor.id, kind, token);
    await doQueueRelayCall(tx, ctx, "unregister", relayFields(ctx, kind, token, null));
  });
  relayCallQueued();
}
