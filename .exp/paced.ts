import fs from "node:fs";
import http from "node:http";
import { cpuSeconds, startBaseline } from "../bench/servers.ts";
function sched(pid: number): number {
  let ns = 0;
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) ns += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
  return ns / 1e6;
}
const server = await startBaseline();
const url = new URL(server.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const N = Number(process.env.N ?? 1000), SECONDS = Number(process.env.S ?? 10);
const send = () => new Promise<void>((resolve, reject) => { const req = http.request({ agent, host: url.hostname, port: url.port, method: "POST", path: "/api/v1/users/me/presence", headers: { "content-type": "application/x-www-form-urlencoded" } }, (res) => { res.resume(); res.on("end", () => resolve()); }); req.on("error", reject); req.end("status=active&ping_only=true"); });
for (const label of ["idle", "paced"]) {
  const c0 = cpuSeconds(server.pid)!, s0 = sched(server.pid);
  const start = performance.now();
  if (label === "paced") await Promise.all(Array.from({ length: N }, async (_, i) => { const w = start + (i * SECONDS * 1000) / N - performance.now(); if (w > 0) await new Promise((r) => setTimeout(r, w)); await send(); }));
  const rest = start + SECONDS * 1000 - performance.now(); if (rest > 0) await new Promise((r) => setTimeout(r, rest));
  const c1 = cpuSeconds(server.pid)!, s1 = sched(server.pid);
  console.log(label, "stat ms/req", ((c1 - c0) * 1000 / N).toFixed(3), "schedstat ms/req", ((s1 - s0) / N).toFixed(3));
}
agent.destroy(); await server.stop();
