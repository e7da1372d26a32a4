/**
 * With several processes (REDIS_URL), an events request (GET or DELETE /events) for a queue
 * another process holds is passed on to that process, which answers it. A front proxy routes by
 * the `queue_id` of the query string (deploy/nginx.conf), but a client may put it in the body
 * (python-zulip-api's DELETE does), or a proxy may not route at all. The owner authenticates the
 * request again from the same headers; a request that was passed on once is never passed again.
 * When the owner is gone (crashed: no live entry, or it refuses the connection), this process
 * answers as for any queue it does not hold: BAD_EVENT_QUEUE_ID, and the client registers again.
 *
 * When the owner is restarting (its graceful stop saved its queues and marked it so:
 * events/process-registry.ts), the queue comes back with it: the request, once authenticated,
 * waits here until the owner listens again and is then passed on. A poll that has waited a
 * heartbeat's time, or asked not to block, gets an empty list of events (what the owner's own
 * stop answered) and polls again; past the owner's deadline the queue is gone. An empty answer
 * is what every client takes in its stride, where errors differ: zulip-flutter registers again
 * on any 4xx but a rate limit (and backs off on a 5xx), python-zulip-api retries a 5xx without
 * blocking, zulip-js waits a second after any answer. A DELETE still waiting at the bound is
 * answered BAD_EVENT_QUEUE_ID; its queue, restored, expires unused.
 */
import http from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from "fastify";
import type { Logger } from "pino";
import type { ProcessRegistry, ProcessState } from "../events/process-registry.ts";
import { authenticate, type AuthEnv } from "./auth.ts";

/** Marks a request one process passed to another. */
const FORWARDED_HEADER = "x-parley-forwarded-by";

/** Headers that belong to one connection, not to the request: not passed on. */
const HOP_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer", "content-length", "host"]);

const EVENTS_URLS = new Set(["/api/v1/events", "/json/events"]);

/** The process id a queue id names (the part before the first ':'), if any. */
export function queueProcess(queueId: string): string | null {
  const colon = queueId.indexOf(":");
  return colon > 0 ? queueId.slice(0, colon) : null;
}

function queueIdOf(req: FastifyRequest): string | null {
  for (const source of [req.query, req.body]) {
    if (source !== null && typeof source === "object" && "queue_id" in source) {
      const value = (source as Record<string, unknown>).queue_id;
      if (typeof value === "string") return value;
    }
  }
  return null;
}

/** The request's body as a form, for the owner (the parsed parameters, written out again). */
function formBody(req: FastifyRequest): string | null {
  if (req.body === null || typeof req.body !== "object" || Array.isArray(req.body)) return null;
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(req.body as Record<string, unknown>)) {
    form.append(name, typeof value === "string" ? value : JSON.stringify(value));
  }
  return form.toString();
}

type Answer = { status: number; contentType: string; body: Buffer };

/**
 * Sends the request to `base`; null when the owner cannot be reached (the caller answers itself).
 * The owner answers uncompressed (no Accept-Encoding goes with it): this process compresses the
 * answer for its client, as any other (http/compression.ts).
 */
function passOn(req: FastifyRequest, res: http.ServerResponse, base: string, processId: string): Promise<Answer | null> {
  const headers: http.OutgoingHttpHeaders = { [FORWARDED_HEADER]: processId };
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name) && name !== FORWARDED_HEADER && name !== "accept-encoding") headers[name] = value;
  }
  const body = formBody(req);
  if (body !== null) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers["content-length"] = Buffer.byteLength(body);
  }
  return new Promise((resolve) => {
    const outgoing = http.request(new URL(req.url, base), { method: req.method, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("end", () => resolve({ status: answer.statusCode ?? 502, contentType: String(answer.headers["content-type"] ?? "application/json"), body: Buffer.concat(chunks) }));
      answer.on("error", () => resolve(null));
    });
    // A client that goes away before its answer ends the long poll it was waiting on at the owner too.
    res.once("close", () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    outgoing.on("error", () => resolve(null));
    outgoing.end(body ?? undefined);
  });
}

type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger>;

/** What forwarding needs besides the registry: this process's id, the heartbeat interval, how to authenticate. */
export type ForwardingOptions = { processId: string; heartbeatMs: number; authEnv: AuthEnv };

/** Passes events requests for other processes' queues to their owners (see the file's comment). */
export function registerEventsForwarding(app: App, registry: ProcessRegistry, opts: ForwardingOptions): void {
  app.addHook("preHandler", async (req, reply) => {
    if ((req.method !== "GET" && req.method !== "DELETE") || !EVENTS_URLS.has(req.routeOptions.url ?? "")) return;
    if (req.headers[FORWARDED_HEADER] !== undefined) return;
    const queueId = queueIdOf(req);
    const owner = queueId === null ? null : queueProcess(queueId);
    if (queueId === null || owner === null || owner === opts.processId) return;
    let state = await registry.stateOf(owner).catch(() => null);
    if (state === null) return;
    if (state.restartingUntilMs === null) {
      if (state.url === null) return;
      const answer = await passOn(req, reply.raw, state.url, opts.processId);
      if (answer !== null) return reply.code(answer.status).header("content-type", answer.contentType).send(answer.body);
      // Refused: it crashed, or has begun a graceful stop since.
      state = await registry.stateOf(owner).catch(() => null);
      if (state?.restartingUntilMs == null) return;
    }
    return waitForOwner(req, reply, registry, opts, { owner, queueId, state });
  });
}

/** A request for a restarting owner's queue: passed on once it is back, else answered here (see the file's comment). */
async function waitForOwner(req: FastifyRequest, reply: FastifyReply, registry: ProcessRegistry, opts: ForwardingOptions, on: { owner: string; queueId: string; state: ProcessState }) {
  // Only the owner can tell whose queue it is; the caller must at least be someone.
  await authenticate(req, opts.authEnv, req.routeOptions.url === "/json/events" ? "session" : "basic");
  const dontBlock = String((req.query as Record<string, unknown>).dont_block) === "true";
  const untilMs = Math.min(on.state.restartingUntilMs ?? 0, Date.now() + opts.heartbeatMs);
  const now = dontBlock ? on.state : await registry.awaitReturn(on.owner, untilMs);
  // A client that went away meanwhile has polled again or stopped: its stale poll goes nowhere.
  if (reply.raw.destroyed) return reply.hijack();
  if (now !== null && now.restartingUntilMs === null) {
    // Back (or past its deadline without coming back: no URL, the queue is gone).
    if (now.url === null) return;
    const answer = await passOn(req, reply.raw, now.url, opts.processId);
    if (answer !== null) return reply.code(answer.status).header("content-type", answer.contentType).send(answer.body);
    return;
  }
  // Still restarting (or this process is stopping): the client polls again.
  if (req.method !== "GET") return;
  return reply.send({ result: "success", msg: "", events: [], queue_id: on.queueId });
}
