/**
 * The ceiling of event delivery: a bare Node `http` server that holds every GET as a pending long
 * poll and, when a POST arrives, answers each of them with one small JSON event carrying the
 * POST's `content`, then answers the POST. No queues, no authentication, no storage: what Node
 * and the kernel cost to wake N held requests. Run as its own process, like Parley; prints
 * `{"port": N}` once listening on 127.0.0.1 and exits when its stdin closes or after
 * BASELINE_MAX_SECONDS, so it cannot outlive the benchmark.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

const MAX_SECONDS = Number(process.env.BASELINE_MAX_SECONDS ?? 1800);
const POST_ANSWER = JSON.stringify({ result: "success", msg: "", id: 123456, automatic_new_visibility_policy: null });

/** A held GET: its answer and the queue id it named (echoed back, as Zulip names the queue). */
type Pending = { res: http.ServerResponse; queueId: string };

const pending = new Set<Pending>();
let nextEventId = 0;

function answer(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Answers every held poll with one message event, in the order they arrived. */
function wakeAll(content: string): void {
  const held = [...pending];
  pending.clear();
  for (const poll of held) {
    const event = { id: nextEventId++, type: "message", message: { content }, flags: [] };
    answer(poll.res, JSON.stringify({ result: "success", msg: "", events: [event], queue_id: poll.queueId }));
  }
}

const server = http.createServer((req, res) => {
  if (req.method === "GET") {
    const queueId = new URL(req.url ?? "/", "http://127.0.0.1").searchParams.get("queue_id") ?? "";
    const poll: Pending = { res, queueId };
    pending.add(poll);
    // A client that goes away frees its slot, as a closed long poll does on a real server.
    res.once("close", () => pending.delete(poll));
    req.resume();
    return;
  }
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => (body += chunk));
  req.on("end", () => {
    wakeAll(new URLSearchParams(body).get("content") ?? "");
    answer(res, POST_ANSWER);
  });
});
server.keepAliveTimeout = 120_000;
// Long polls stay open for as long as the benchmark holds them.
server.requestTimeout = 0;
server.headersTimeout = 60_000;

server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});

const stop = () => {
  for (const poll of pending) poll.res.destroy();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
setTimeout(() => process.exit(0), MAX_SECONDS * 1000).unref();
