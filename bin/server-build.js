// Compiles src/ to plain JavaScript with esbuild, so that the server runs without tsx's module
// hooks: they keep a thread with a V8 isolate of its own for the process's life (about 35 MB of
// RSS per process). The output is a bundle rather than a file per source file: Node resolves,
// reads and links every module of a start one by one, and our 400 files took about 300 ms of it.
// Its entry points are cli.mjs and push-thread-entry.mjs (what the push worker's thread loads);
// code they share, and what cli.ts imports only to serve (server.ts), sits in chunks beside them.
// Packages stay imports of node_modules, but for the pure-ESM ones in BUNDLED_PACKAGES: kysely
// and zod each spread over hundreds of small modules, 200 ms of a start. The output goes to
// node_modules/.cache/parley-server/<key>/ (beside the web app's bundle, and writable under
// deploy/parley@.service), where the key hashes every source file, the bundled packages'
// versions, esbuild's version and the options; a start with unchanged sources reuses it. The
// files are `.mjs`: no package.json there says they are modules. Several processes starting at
// once (a test run, `serve --processes N`) each build into a directory of their own and rename it
// into place: the first rename wins, the others drop theirs.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SRC = path.join(ROOT, "src");
const CACHE = path.join(ROOT, "node_modules/.cache/parley-server");
const ENTRY_POINTS = ["cli.ts", "push-thread-entry.ts"].map((file) => path.join(SRC, file));
export const BUNDLED_PACKAGES = ["kysely", "zod"];

/** The package a bare import names: `zod` of `zod/v4`, `@scope/name` of `@scope/name/sub`. */
function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Leaves every package but BUNDLED_PACKAGES to Node's resolution at run time. */
const externalPackages = {
  name: "external-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      BUNDLED_PACKAGES.includes(packageName(args.path)) ? undefined : { path: args.path, external: true },
    );
  },
};

const OPTIONS = {
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  outbase: SRC,
  outExtension: { ".js": ".mjs" },
  logLevel: "silent",
  tsconfig: path.join(ROOT, "tsconfig.json"),
  plugins: [externalPackages],
};

function packageVersion(name) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
}

function sourceFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []))
    .sort();
}

function buildKey(files) {
  const hash = crypto.createHash("sha256");
  const packages = BUNDLED_PACKAGES.map((name) => [name, packageVersion(name)]);
  hash.update(JSON.stringify([esbuild.version, packages, { ...OPTIONS, plugins: undefined, tsconfig: fs.readFileSync(OPTIONS.tsconfig, "utf8") }]));
  for (const file of files) hash.update(`\0${path.relative(SRC, file)}\0`).update(fs.readFileSync(file));
  return hash.digest("hex").slice(0, 16);
}

/**
 * Removes the builds no process has started from for a day: a server still running from one
 * (started before the sources changed) keeps reading it, for its push thread.
 */
function pruneOld(cache, keep) {
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of fs.readdirSync(cache)) {
    if (name === keep) continue;
    const dir = path.join(cache, name);
    try {
      if (fs.statSync(dir).mtimeMs < dayAgo) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another process removed it first.
    }
  }
}

/**
 * Returns the directory holding the compiled sources (<cache>/<key>), building it when missing.
 * `cache` moves the output elsewhere (the tests build into a directory of their own).
 */
export async function buildServer(cache = CACHE) {
  const files = sourceFiles(SRC);
  const key = buildKey(files);
  const out = path.join(cache, key);
  if (fs.existsSync(path.join(out, "cli.mjs"))) {
    try {
      const now = new Date();
      fs.utimesSync(out, now, now);
    } catch {
      // Built by another user (a read-only install): it is used all the same.
    }
    return out;
  }
  fs.mkdirSync(cache, { recursive: true });
  const tmp = path.join(cache, `${key}.tmp-${process.pid}-${crypto.randomBytes(4).toString("hex")}`);
  await esbuild.build({ ...OPTIONS, entryPoints: ENTRY_POINTS, outdir: tmp });
  try {
    fs.renameSync(tmp, out);
  } catch (err) {
    // Another process finished the same build first: use theirs.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(path.join(out, "cli.mjs"))) throw err;
  }
  pruneOld(cache, key);
  return out;
}
