/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, as BENCH_PROFILE_DIR writes for the Parley
 * server): the functions with the most self time, the most inclusive time (each sample counted
 * once per function on its stack), and self time per source file or package.
 * Usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
 */
import fs from "node:fs";

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

function label(frame: CallFrame): string {
  const file = frame.url.replace(/^file:\/\//, "").replace(/^.*\/(node_modules\/|src\/|bench\/)/, "$1").replace(/^.*\/parley-server\/[0-9a-f]+\//, "src/");
  return `${frame.functionName || "(anonymous)"} ${file ? `${file}:${frame.lineNumber + 1}` : ""}`.trim();
}

function area(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, "");
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  const src = /\/(src\/.*)$/.exec(url);
  if (src) return src[1];
  if (url.startsWith("node:")) return url;
  return frame.functionName.startsWith("(") ? frame.functionName : url || "(native/V8)";
}

function top(map: Map<string, number>, total: number, n: number): string[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`);
}

/** Prints the three tables for one profile. */
export function summarise(file: string, n: number): string {
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    total += dt;
    const own = label(node.callFrame);
    self.set(own, (self.get(own) ?? 0) + dt);
    areas.set(area(node.callFrame), (areas.get(area(node.callFrame)) ?? 0) + dt);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame) break;
      const name = label(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
    }
  });
  return [
    `${file}: ${(total / 1e6).toFixed(1)} s sampled`,
    "",
    "self time by function:",
    ...top(self, total, n),
    "",
    "inclusive time by function:",
    ...top(inclusive, total, n),
    "",
    "self time by file or package:",
    ...top(areas, total, n),
  ].join("\n");
}

if (process.argv[1]?.endsWith("profile-summary.ts")) {
  const [file, count] = process.argv.slice(2);
  if (!file) {
    console.error("usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [top]");
    process.exit(2);
  }
  console.log(summarise(file, Number(count ?? 25)));
}
