/**
 * Registering this server with the push relay (Zulip's `manage.py register_server`): the relay
 * learns the server's id and key (PUSH_RELAY_ORG_ID / PUSH_RELAY_ORG_KEY), its host name and a
 * contact address, at `remotes/server/register`. Run once by an operator (`parley
 * register-push-server`); running it again is harmless (the relay answers created: false).
 */
import type { PushRelayConfig } from "../../config.ts";
import { callRelay } from "./relay-client.ts";

/** What the relay said: whether it created the server now (false: it knew it). */
export type ServerRegistration = { ok: true; created: boolean } | { ok: false; reason: string };

export async function registerWithRelay(relay: PushRelayConfig, input: { hostname: string; contactEmail: string }, timeoutSeconds: number): Promise<ServerRegistration> {
  const form = { zulip_org_id: relay.orgId, zulip_org_key: relay.orgKey, hostname: input.hostname, contact_email: input.contactEmail };
  const outcome = await callRelay(relay, "server/register", { form }, timeoutSeconds);
  if (outcome.kind === "ok") return { ok: true, created: outcome.body.created === true };
  // The key stays out of the reason: only the relay's own words and status.
  return { ok: false, reason: outcome.kind === "retry" ? `the relay could not be reached (${outcome.reason})` : `the relay refused: ${outcome.msg} (HTTP ${outcome.status})` };
}
