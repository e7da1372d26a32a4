import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { startParley, startBaseline } from "../bench/servers.ts";
function threads(pid: number): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    const name = fs.readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim();
    const ns = Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
    m.set(`${name}#${t}`, ns / 1e6);
  }
  return m;
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pp-"));
const flags = (process.env.FLAGS ?? "").split(" ").filter(Boolean);
const server = process.env.BARE ? await startBaseline() : await startParley({ dataDir, databaseUrl: null, nodeFlags: flags });
const rc = fs.existsSync(path.join(dataDir, "zuliprc")) ? fs.readFileSync(path.join(dataDir, "zuliprc"), "utf8") : "email=a\nkey=b";
const email = /email=(.*)/.exec(rc)![1], key = /key=(.*)/.exec(rc)![1];
const auth = "Basic " + Buffer.from(`${email}:${key}`).toString("base64");
const url = new URL(server.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const N = Number(process.env.N ?? 1000), SECONDS = Number(process.env.S ?? 10);
const P = process.env.P ?? "GET /api/v1/users/me/status";
const [method, p] = P.split(" ");
const body = process.env.BODY ?? "";
const send = () => new Promise<void>((resolve, reject) => { const req = http.request({ agent, host: url.hostname, port: url.port, method, path: p, headers: { authorization: auth, ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) } }, (res) => { let t = ""; res.on("data", (d) => (t += d)); res.on("end", () => { if (res.statusCode !== 200) console.log(t); resolve(); }); }); req.on("error", reject); req.end(body); });
for (let i = 0; i < 200; i++) await send();
for (const label of ["idle", "paced"]) {
  const flt = () => Number(fs.readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ")[7]);
  const cs = () => { let v = 0; for (const t of fs.readdirSync(`/proc/${server.pid}/task`)) { const st = fs.readFileSync(`/proc/${server.pid}/task/${t}/status`, "utf8"); v += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(st)![1]); } return v; };
  const f0 = flt(), c0 = cs();
  const t0 = threads(server.pid);
  const start = performance.now();
  if (label === "paced" && process.env.CONC) { let next = 0; await Promise.all(Array.from({ length: Number(process.env.CONC) }, async () => { while (next++ < N) await send(); })); }
  else if (label === "paced") await Promise.all(Array.from({ length: N }, async (_, i) => { const w = start + (i * SECONDS * 1000) / N - performance.now(); if (w > 0) await new Promise((r) => setTimeout(r, w)); await send(); }));
  const rest = start + SECONDS * 1000 - performance.now(); if (rest > 0) await new Promise((r) => setTimeout(r, rest));
  const t1 = threads(server.pid);
  let total = 0; const parts: string[] = [];
  for (const [k, v] of t1) { const d = v - (t0.get(k) ?? 0); total += d; if (d > 5) parts.push(`${k}=${d.toFixed(0)}`); }
  console.log(label, "faults/req", ((flt() - f0) / N).toFixed(1), "vol ctx/req", ((cs() - c0) / N).toFixed(1));
  console.log(label, "ms/req", (total / N).toFixed(3), parts.join(" "));
}
agent.destroy(); await server.stop();
