/**
 * The ceiling every figure is compared with: a bare Node `http` server that reads the request
 * body and answers a small JSON success envelope, run as its own process like Parley.
 * Prints `{"port": N}` once listening on 127.0.0.1; exits when its stdin closes (the parent
 * went away) or after BASELINE_MAX_SECONDS, so it can never outlive the benchmark.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

// The same shape and size as a Parley success answer to POST /messages.
const BODY = JSON.stringify({ result: "success", msg: "", id: 123456, automatic_new_visibility_policy: null });
const MAX_SECONDS = Number(process.env.BASELINE_MAX_SECONDS ?? 900);

const server = http.createServer((req, res) => {
  // Consume the body as a real endpoint would before answering.
  req.on("data", () => {});
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(BODY) });
    res.end(BODY);
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
setTimeout(() => process.exit(0), MAX_SECONDS * 1000).unref();
