/**
 * End-to-end encrypted push registration (Zulip's register_push_device, FL 406, in its 11.x form):
 * the client sends its key and a registration only the relay can read; Parley stores the device
 * as pending and has the relay register it off the request path (relay-worker.ts), which makes it
 * active or failed and tells the user's clients (`push_device` events).
 */
import { HumanUsersOnlyError, JsonableError, PushNotConfiguredError } from "../../errors.ts";
import { getPushDevice, insertPushRelayJob, upsertPushDevice } from "../../store/push/push.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { relayCallQueued } from "./relay-signal.ts";

/** POST /mobile_push/register's parameters (push_account_id as its decimal text). */
export type PushDeviceInput = {
  token_kind: string;
  push_account_id: string;
  push_public_key: string;
  bouncer_public_key: string;
  encrypted_push_registration: string;
};

/** The token kinds the relay knows (Zulip's PushDevice.TokenKind). */
const TOKEN_KINDS = new Set(["fcm", "apns"]);

/**
 * POST /mobile_push/register. A registration of this (user, push_account_id) that is pending or
 * active is left as it is (success, nothing changes); a failed one, or a new one, is stored as
 * pending and queued for the relay.
 */
export async function registerPushDevice(ctx: AuthedCtx, input: PushDeviceInput): Promise<void> {
  if (ctx.actor.is_bot === 1) throw new HumanUsersOnlyError();
  if (ctx.config.pushRelay === null) throw new PushNotConfiguredError();
  if (!TOKEN_KINDS.has(input.token_kind)) throw new JsonableError("Invalid token_kind");
  const queued = await withTransaction(ctx, async (tx) => {
    const existing = await getPushDevice(tx, ctx.actor.id, input.push_account_id);
    if (existing && existing.error_code === null) return false;
    await upsertPushDevice(tx, { realm_id: ctx.realm.id, user_id: ctx.actor.id, token_kind: input.token_kind, push_account_id: input.push_account_id, push_public_key: input.push_public_key });
    // The ciphertext and the relay key live only in the queued call, as upstream keeps them in its queue.
    const fields = {
      realm_uuid: ctx.realm.uuid ?? "",
      push_account_id: input.push_account_id,
      encrypted_push_registration: input.encrypted_push_registration,
      bouncer_public_key: input.bouncer_public_key,
    };
    await insertPushRelayJob(tx, { realm_id: ctx.realm.id, user_id: ctx.actor.id, call: "e2ee/register", fields: JSON.stringify(fields), due_at_ms: ctx.clock.nowMs() });
    return true;
  });
  if (queued) relayCallQueued();
}
