/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, as BENCH_PROFILE_DIR writes for the Parley
 * server): the functions with the most self time, the most inclusive time (each sample counted
 * once per function on its stack), and self time per source file or package. The server runs as a
 * bundle (bin/server-build.js): a frame in it is named by the module esbuild put there, from the
 * `// src/...` or `// node_modules/...` line that opens each module's code in the bundle.
 * Usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
 */
import fs from "node:fs";

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/** Per bundle file: the line each module's code starts at, and the module's path. */
const bundleModules = new Map<string, { line: number; module: string }[]>();

/** The module a position in the server's bundle belongs to (`src/...` or `node_modules/...`), or null outside the bundle. */
function bundledModule(url: string, lineNumber: number): string | null {
  if (!/\/parley-server\/[0-9a-f]+\//.test(url)) return null;
  let starts = bundleModules.get(url);
  if (!starts) {
    starts = [];
    try {
      fs.readFileSync(url, "utf8")
        .split("\n")
        .forEach((text, line) => {
          const opened = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(text);
          if (opened) starts?.push({ line, module: opened[1] });
        });
    } catch {
      // A build removed since the profile was taken: frames keep the bundle's name.
    }
    bundleModules.set(url, starts);
  }
  // Above the first module: esbuild's own helpers.
  let found = "(bundle helpers)";
  for (const start of starts) {
    if (start.line > lineNumber) break;
    found = start.module;
  }
  return found;
}

function label(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, "");
  // In the bundle a line number says nothing of the source: the module names the function.
  const bundled = bundledModule(url, frame.lineNumber);
  const file = bundled ?? (url ? `${url.replace(/^.*\/(node_modules\/|src\/|bench\/)/, "$1")}:${frame.lineNumber + 1}` : "");
  return `${frame.functionName || "(anonymous)"} ${file}`.trim();
}

function area(frame: CallFrame): string {
  const path = frame.url.replace(/^file:\/\//, "");
  const url = bundledModule(path, frame.lineNumber) ?? path;
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
