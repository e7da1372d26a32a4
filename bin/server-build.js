// Compiles src/ to plain JavaScript with esbuild, one output file per source file, so that the
// server runs without tsx's module hooks: they keep a thread with a V8 isolate of its own for the
// process's life (about 35 MB of RSS per process). The output goes to
// node_modules/.cache/parley-server/<key>/ (beside the web app's bundle, and writable under
// deploy/parley@.service), where the key hashes every source file, esbuild's version and the
// options; a start with unchanged sources reuses it. The files are `.mjs`: no package.json
// there says they are modules. Several processes starting at once (a test run, `serve
// --processes N`) each build into a directory of their own and rename it into place: the first
// rename wins, the others drop theirs.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SRC = path.join(ROOT, "src");
const CACHE = path.join(ROOT, "node_modules/.cache/parley-server");

/** Rewrites a relative `./x.ts` import to `./x.mjs` and leaves it to Node: nothing is bundled. */
const relativeImports = {
  name: "relative-imports",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) =>
      args.kind === "entry-point" ? undefined : { path: args.path.replace(/\.ts$/, ".mjs"), external: true },
    );
  },
};

const OPTIONS = {
  bundle: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  outbase: SRC,
  outExtension: { ".js": ".mjs" },
  logLevel: "silent",
  tsconfig: path.join(ROOT, "tsconfig.json"),
  plugins: [relativeImports],
};

function sourceFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []))
    .sort();
}

function buildKey(files) {
  const hash = crypto.createHash("sha256");
  hash.update(JSON.stringify([esbuild.version, { ...OPTIONS, plugins: undefined, tsconfig: fs.readFileSync(OPTIONS.tsconfig, "utf8") }]));
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
  await esbuild.build({ ...OPTIONS, entryPoints: files, outdir: tmp });
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
