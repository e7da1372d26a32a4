/**
 * Calls to the push relay (Zulip's zerver/lib/remote_server.py send_to_push_bouncer): POST to
 * `<PUSH_RELAY_URL>/api/v1/remotes/<endpoint>` with this server's credentials as HTTP Basic,
 * bounded by PUSH_RELAY_TIMEOUT_SECONDS, and the answer sorted as upstream sorts it: a network
 * error or a 5xx is worth retrying; a 4xx is the relay's refusal, with its code; a 200 is the
 * relay's JSON.
 */
import type { PushRelayConfig } from "../../config.ts";
import { ZULIP_VERSION } from "../../version.ts";

/** How a relay call ended. */
export type RelayOutcome =
  | { kind: "ok"; body: Record<string, unknown> }
  /** Network error, timeout or 5xx: try again later. */
  | { kind: "retry"; reason: string; status: number | null }
  /** A 4xx (or another unexpected status): the relay's code and message, if it gave them. */
  | { kind: "refused"; status: number; code: string | null; msg: string };

/** The most of a relay's answer that is read. */
const MAX_ANSWER_BYTES = 1 << 20;

/** The body of a relay request: a form, or JSON (the notify calls). */
export type RelayBody = { form: Record<string, string> } | { json: unknown };

async function readJson(res: Response): Promise<Record<string, unknown> | null> {
  const text = (await res.text()).slice(0, MAX_ANSWER_BYTES);
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** POSTs one call to the relay. `stop` aborts it (the server is shutting down): that is a retry. */
export async function callRelay(relay: PushRelayConfig, endpoint: string, body: RelayBody, timeoutSeconds: number, stop?: AbortSignal): Promise<RelayOutcome> {
  const headers: Record<string, string> = {
    authorization: `Basic ${Buffer.from(`${relay.orgId}:${relay.orgKey}`).toString("base64")}`,
    "user-agent": `ZulipServer/${ZULIP_VERSION}`,
  };
  let payload: string;
  if ("form" in body) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    payload = new URLSearchParams(body.form).toString();
  } else {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body.json);
  }
  const signals = [AbortSignal.timeout(timeoutSeconds * 1000), ...(stop ? [stop] : [])];
  let res: Response;
  try {
    res = await fetch(`${relay.url}/api/v1/remotes/${endpoint}`, { method: "POST", headers, body: payload, signal: AbortSignal.any(signals), redirect: "error" });
  } catch (err) {
    return { kind: "retry", reason: err instanceof Error ? err.message : String(err), status: null };
  }
  if (res.status >= 500) {
    await res.body?.cancel();
    return { kind: "retry", reason: `HTTP ${res.status}`, status: res.status };
  }
  const answer = await readJson(res);
  if (res.status === 200 && answer !== null) return { kind: "ok", body: answer };
  const code = typeof answer?.code === "string" ? answer.code : null;
  const msg = typeof answer?.msg === "string" ? answer.msg : `HTTP ${res.status}`;
  return { kind: "refused", status: res.status, code, msg };
}
