/**
 * Calls to the push relay (Zulip's zerver/lib/remote_server.py send_to_push_bouncer): POST to
 * `<PUSH_RELAY_URL>/api/v1/remotes/<endpoint>` with this server's credentials as HTTP Basic,
 * bounded by PUSH_RELAY_TIMEOUT_SECONDS, and the answer sorted as upstream sorts it: a network
 * error or a 5xx is worth retrying; a 4xx is the relay's refusal, with its code; a 200 is the
 * relay's JSON.
 */
import http from "node:http";
import https from "node:https";
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

/** The body of a relay request: a form, or JSON (the notify calls), as a value or already serialized. */
export type RelayBody = { form: Record<string, string> } | { json: unknown } | { jsonText: string };

/**
 * Connections to the relay are kept open between calls. A message to a busy channel makes a
 * call per notified user (upstream's protocol), and undici's fetch cost about 1 ms of CPU per
 * call where node:http over a kept-alive socket costs a fraction of it (docs/benchmarks.md).
 */
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 16, maxFreeSockets: 16 };
const agents = { "http:": new http.Agent(AGENT_OPTIONS), "https:": new https.Agent(AGENT_OPTIONS) };

type Answer = { status: number; text: string };

/** One POST: the status and up to MAX_ANSWER_BYTES of the answer (the rest is dropped unread). */
function post(url: URL, headers: Record<string, string>, payload: string, timeoutMs: number, stop?: AbortSignal): Promise<Answer> {
  const lib = url.protocol === "https:" ? https : http;
  const agent = url.protocol === "https:" ? agents["https:"] : agents["http:"];
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(payload) }, signal: stop });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        if (size >= MAX_ANSWER_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8").slice(0, MAX_ANSWER_BYTES) });
      });
      res.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.end(payload);
  });
}

function parseJson(text: string): Record<string, unknown> | null {
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
    payload = "jsonText" in body ? body.jsonText : JSON.stringify(body.json);
  }
  let res: Answer;
  try {
    res = await post(new URL(`${relay.url}/api/v1/remotes/${endpoint}`), headers, payload, timeoutSeconds * 1000, stop);
  } catch (err) {
    return { kind: "retry", reason: err instanceof Error ? err.message : String(err), status: null };
  }
  // A redirect is not followed (the credentials would go with it): it counts as a failure to reach the relay.
  if (res.status >= 500 || (res.status >= 300 && res.status < 400)) return { kind: "retry", reason: `HTTP ${res.status}`, status: res.status };
  const answer = parseJson(res.text);
  if (res.status === 200 && answer !== null) return { kind: "ok", body: answer };
  const code = typeof answer?.code === "string" ? answer.code : null;
  const msg = typeof answer?.msg === "string" ? answer.msg : `HTTP ${res.status}`;
  return { kind: "refused", status: res.status, code, msg };
}
