/**
 * The legacy push registration the real Zulip app uses at this feature level (Zulip's
 * add_push_device_token / remove_push_device_token, views apns_device_token and
 * android_gcm_reg_id): the app posts its APNs or FCM token at every login, on every server.
 * Parley stores it whether or not a relay is configured (as upstream stores a PushDeviceToken
 * either way), and with a relay has it register the token (remotes/push/register), or
 * unregister it, off the request path (relay-worker.ts), retried until the relay answers.
 *
 * Tokens stored while no relay was configured reach one configured later: each token records the
 * relay its registration was queued for (`relay_id`: relayIdentity, a digest of the relay's URL
 * and this server's id there), and a worker starting with a relay queues the registration of
 * every token not marked for it, marking them in the same transaction
 * (doQueueRegistrationsOfStoredTokens). So a restart with the same relay queues nothing, a
 * relay changed for another registers everything once with the new one, and a registration the
 * relay refused is not repeated at every start (the app repeats it at its next login).
 */
import { HumanUsersOnlyError, JsonableError } from "../../errors.ts";
import type { PushRelayConfig } from "../../config.ts";
import { tokenDigest } from "../../secrets.ts";
import { getRealm } from "../../store/realm/realms.ts";
import { deletePushDeviceToken, insertPushDeviceToken, insertPushRelayJob, insertPushRelayJobs, realmsWithTokensUnknownTo, takeTokensUnknownTo } from "../../store/push/push.ts";
import { PUSH_TOKEN_KIND, type PushTokenKind } from "../../store/schema/push.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { usersByIds } from "../../store/users/users.ts";
import { actionCtx, withTransaction, type AuthedCtx, type ServerDeps } from "../context.ts";
import { relayCallQueued } from "./relay-signal.ts";

/** Zulip's bound on a token's length. */
const MAX_TOKEN_LENGTH = 4096;
/** Zulip's ApnsAppId: a bundle id. */
const APP_ID = /^[.a-zA-Z0-9-]+$/;
const BASE64_CHAR = /^[A-Za-z0-9+/]$/;

/** A token call's subject: which kind, the token, and (APNs) the app. */
export type PushTokenInput = { kind: "apns" | "fcm"; token: string; appId?: string };

/** Which relay a token's registration is queued for: where it is and who this server is there (not the key, which may change). */
export function relayIdentity(relay: PushRelayConfig): string {
  return tokenDigest(`${relay.url}\n${relay.orgId}`).slice(0, 32);
}

/** Python's bytes.fromhex: pairs of hex digits, spaces between them allowed. */
function isHex(text: string): boolean {
  const hex = text.replace(/ /g, "");
  return hex.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(hex);
}

/**
 * Python's lenient base64.b64decode, as upstream's APNs check before it took hex only: ASCII only,
 * characters outside the alphabet skipped, the data ending at a padding that completes its last
 * group of four, or at a whole group.
 */
function isBase64(text: string): boolean {
  let inGroup = 0;
  let pads = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) > 127) return false;
    if (ch === "=") {
      if (inGroup >= 2 && inGroup + ++pads >= 4) return true;
      continue;
    }
    if (!BASE64_CHAR.test(ch)) continue;
    inGroup = (inGroup + 1) % 4;
    pads = 0;
  }
  return inGroup === 0;
}

/**
 * Zulip's validate_token: 1 to 4,096 characters; an APNs token must decode. Upstream decodes hex
 * now (its FL 420 examples send "c0ffee") and base64 before (the FL 372 examples send
 * "apple-tokenbb"), so either is taken. A hex token is kept lower-cased (APNs compares them without
 * case); a base64 one as it came.
 */
function checkedToken(kind: PushTokenKind, raw: string): string {
  if (raw.length === 0 || raw.length > MAX_TOKEN_LENGTH) throw new JsonableError("Empty or invalid length token");
  if (kind !== PUSH_TOKEN_KIND.apns) return raw;
  if (isHex(raw)) return raw.toLowerCase();
  if (isBase64(raw)) return raw;
  throw new JsonableError("Invalid APNS token");
}

/** The relay's form fields naming the user and the token (Zulip's add_push_device_token). */
function relayFields(relay: PushRelayConfig, realm: Pick<RealmRow, "uuid">, user: Pick<UserRow, "id" | "uuid">, token: { kind: PushTokenKind; token: string; ios_app_id: string | null }): Record<string, string> {
  const fields: Record<string, string> = {
    server_uuid: relay.orgId,
    user_uuid: user.uuid ?? "",
    realm_uuid: realm.uuid ?? "",
    user_id: String(user.id),
    token: token.token,
    token_kind: String(token.kind),
  };
  if (token.ios_app_id !== null) fields.ios_app_id = token.ios_app_id;
  return fields;
}

/** Queues a relay call in `tx`, due now. */
async function doQueueRelayCall(tx: Db, ctx: AuthedCtx, call: "register" | "unregister", fields: Record<string, string>): Promise<void> {
  await insertPushRelayJob(tx, { realm_id: ctx.realm.id, call, fields: JSON.stringify(fields), due_at_ms: ctx.clock.nowMs() });
}

/**
 * POST /users/me/apns_device_token and /users/me/android_gcm_reg_id: stores the token
 * (idempotent) and, with a relay, has it register the token.
 */
export async function addPushToken(ctx: AuthedCtx, input: PushTokenInput): Promise<void> {
  if (ctx.actor.is_bot === 1) throw new HumanUsersOnlyError();
  const kind = PUSH_TOKEN_KIND[input.kind];
  const appId = kind === PUSH_TOKEN_KIND.apns ? (input.appId ?? "") : null;
  if (appId !== null && !APP_ID.test(appId)) throw new JsonableError("Invalid app ID");
  const token = checkedToken(kind, input.token);
  const relay = ctx.config.pushRelay;
  await withTransaction(ctx, async (tx) => {
    const row = { realm_id: ctx.realm.id, user_id: ctx.actor.id, kind, token, ios_app_id: appId, date_created: Math.floor(ctx.clock.nowMs() / 1000) };
    await insertPushDeviceToken(tx, { ...row, relay_id: relay === null ? null : relayIdentity(relay) });
    // Registered again even when known: the relay's copy may have expired (as upstream, which always calls it).
    if (relay !== null) await doQueueRelayCall(tx, ctx, "register", relayFields(relay, ctx.realm, ctx.actor, row));
  });
  if (relay !== null) relayCallQueued();
}

/**
 * DELETE of those: forgets the token and, with a relay, has it forget it too (upstream calls the
 * relay even for a token it did not know). Without a relay, a token that is not there is an error.
 */
export async function removePushToken(ctx: AuthedCtx, input: PushTokenInput): Promise<void> {
  if (ctx.actor.is_bot === 1) throw new HumanUsersOnlyError();
  const kind = PUSH_TOKEN_KIND[input.kind];
  const token = checkedToken(kind, input.token);
  const relay = ctx.config.pushRelay;
  await withTransaction(ctx, async (tx) => {
    const deleted = await deletePushDeviceToken(tx, ctx.actor.id, kind, token);
    if (relay === null) {
      if (!deleted) throw new JsonableError("Token does not exist");
      return;
    }
    await doQueueRelayCall(tx, ctx, "unregister", relayFields(relay, ctx.realm, ctx.actor, { kind, token, ios_app_id: null }));
  });
  if (relay !== null) relayCallQueued();
}

/** Queues the registration of the realm's tokens not yet queued for `relay`, marking them so; returns how many. */
async function doQueueRegistrationsOfStoredTokens(tx: Db, realm: RealmRow, relay: PushRelayConfig, nowMs: number): Promise<number> {
  const tokens = await takeTokensUnknownTo(tx, realm.id, relayIdentity(relay));
  if (tokens.length === 0) return 0;
  const users = new Map((await usersByIds(tx, realm.id, [...new Set(tokens.map((t) => t.user_id))])).map((u) => [u.id, u]));
  const jobs = tokens.flatMap((t) => {
    const user = users.get(t.user_id);
    return user ? [{ realm_id: realm.id, call: "register", fields: JSON.stringify(relayFields(relay, realm, user, t)), due_at_ms: nowMs }] : [];
  });
  await insertPushRelayJobs(tx, jobs);
  return jobs.length;
}

/**
 * At a worker's start with a relay configured: every realm's stored tokens the relay has not been
 * given are queued for registration (see the file's comment). Returns how many were queued.
 */
export async function queueRegistrationsOfStoredTokens(deps: ServerDeps, nowMs: number): Promise<number> {
  const relay = deps.config.pushRelay;
  if (relay === null) return 0;
  let queued = 0;
  for (const realmId of await realmsWithTokensUnknownTo(deps.store.reader, relayIdentity(relay))) {
    const realm = await getRealm(deps.store.reader, realmId);
    if (!realm) continue;
    const ctx = actionCtx(deps, { realm, actor: null, client: "Internal" });
    queued += await withTransaction(ctx, (tx) => doQueueRegistrationsOfStoredTokens(tx, realm, relay, nowMs));
  }
  return queued;
}
