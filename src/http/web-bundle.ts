/**
 * The browser app's files (web/): bundled by esbuild into content-hashed names, with gzip and
 * brotli copies made once. The result is kept in node_modules/.cache/parley-webapp under a key
 * of every input (sources, package versions, options), so a start with unchanged sources reads
 * files instead of building; a cache that cannot be written is skipped, never an error.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type * as esbuild from "esbuild";

/** The project's directory: the first above this file with a package.json (from src/, or its compiled copy in node_modules/.cache). */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const ROOT = projectRoot();
const WEB_SRC = path.join(ROOT, "web/src");
const CACHE_DIR = path.join(ROOT, "node_modules/.cache/parley-webapp");
/** Where the hashed files are served; index.html names them under it. */
export const STATIC_PREFIX = "/static/webapp/";
/** Packages whose code lands in the bundle (or makes it): their versions are part of the cache key. */
const BUNDLED_PACKAGES = ["esbuild", "preact", "@preact/signals", "@preact/signals-core"];

const BUILD_OPTIONS = {
  entryPoints: [path.join(WEB_SRC, "main.tsx")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  entryNames: "[name]-[hash]",
  sourcemap: "linked",
  legalComments: "none",
  tsconfig: path.join(ROOT, "web/tsconfig.json"),
  logLevel: "silent",
} satisfies esbuild.BuildOptions;

/** One file as served: its bytes and compressed copies (brotli only where worth the time). */
export type WebFile = { contentType: string; raw: Buffer; gzip: Buffer; br: Buffer | null };

/** The built app: index.html and the hashed files by name. */
export type WebBundle = { index: WebFile; files: ReadonlyMap<string, WebFile> };

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".html": "text/html; charset=utf-8",
};

function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

function packageVersion(name: string): string {
  const file = path.join(ROOT, "node_modules", name, "package.json");
  const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
  return parsed !== null && typeof parsed === "object" && "version" in parsed ? String(parsed.version) : "?";
}

/** A digest of everything that decides the bundle's bytes. */
function inputKey(): string {
  const hash = crypto.createHash("sha256");
  hash.update(JSON.stringify(BUILD_OPTIONS));
  hash.update(JSON.stringify([...BUNDLED_PACKAGES.map(packageVersion), fs.readFileSync(path.join(ROOT, "web/tsconfig.json"), "utf8")]));
  for (const file of listFiles(WEB_SRC)) hash.update(`\0${path.relative(WEB_SRC, file)}\0`).update(fs.readFileSync(file));
  return hash.digest("hex").slice(0, 24);
}

/** A speech bubble in the accent colour, inline so the page makes no extra request for it. */
const FAVICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path fill="#3f6ee8" d="M6 4h20a4 4 0 0 1 4 4v12a4 4 0 0 1-4 4H13l-7 6v-6a4 4 0 0 1-4-4V8a4 4 0 0 1 4-4z"/></svg>')}`;

function indexHtml(names: readonly string[]): string {
  const css = names.filter((n) => n.endsWith(".css")).map((n) => `<link rel="stylesheet" href="${STATIC_PREFIX}${n}">`);
  const js = names.filter((n) => n.endsWith(".js")).map((n) => `<script type="module" src="${STATIC_PREFIX}${n}"></script>`);
  return [
    "<!doctype html>",
    '<html lang="en" data-theme="auto">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark"><title>Parley</title>',
    `<link rel="icon" href="${FAVICON}">`,
    ...css,
    ...js,
    '</head><body><div id="app"></div><noscript>Parley needs JavaScript.</noscript></body></html>',
  ].join("\n");
}

/** Bundles web/src: file name -> bytes, index.html included. */
export async function bundleWebApp(): Promise<Map<string, Buffer>> {
  // Loaded only when the sources changed: a start that reads the cache does without it.
  const esbuild = await import("esbuild");
  const result = await esbuild.build({ ...BUILD_OPTIONS, write: false, outdir: "/webapp" });
  // esbuild's service process is not needed until the sources change (a restart).
  await esbuild.stop();
  const out = new Map<string, Buffer>();
  for (const file of result.outputFiles) out.set(path.basename(file.path), Buffer.from(file.contents));
  out.set("index.html", Buffer.from(indexHtml([...out.keys()])));
  return out;
}

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/** Compresses on the thread pool (never blocking requests); source maps get gzip only (rarely fetched). */
async function compress(name: string, raw: Buffer): Promise<WebFile> {
  const ext = path.extname(name);
  const [gz, br] = await Promise.all([
    gzip(raw, { level: 9 }),
    ext === ".map" ? null : brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
  ]);
  return { contentType: CONTENT_TYPES[ext] ?? "application/octet-stream", raw, gzip: gz, br };
}

function readCached(dir: string): Map<string, WebFile> | null {
  if (!fs.existsSync(path.join(dir, "index.html"))) return null;
  const files = new Map<string, WebFile>();
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith(".gz") || name.endsWith(".br")) continue;
    const br = path.join(dir, `${name}.br`);
    const contentType = CONTENT_TYPES[path.extname(name)] ?? "application/octet-stream";
    files.set(name, { contentType, raw: fs.readFileSync(path.join(dir, name)), gzip: fs.readFileSync(path.join(dir, `${name}.gz`)), br: fs.existsSync(br) ? fs.readFileSync(br) : null });
  }
  return files;
}

/** Writes a build into the cache: into a fresh directory first, then renamed, so readers never see half. */
function writeCache(dir: string, files: ReadonlyMap<string, WebFile>): void {
  try {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = fs.mkdtempSync(path.join(CACHE_DIR, "tmp-"));
    for (const [name, file] of files) {
      fs.writeFileSync(path.join(tmp, name), file.raw);
      fs.writeFileSync(path.join(tmp, `${name}.gz`), file.gzip);
      if (file.br) fs.writeFileSync(path.join(tmp, `${name}.br`), file.br);
    }
    fs.renameSync(tmp, dir);
  } catch {
    // Read-only install or another process won the race: serving from memory is enough.
  }
}

/** Drops cached builds other than `keep` (older sources). */
function pruneCache(keep: string): void {
  try {
    for (const name of fs.readdirSync(CACHE_DIR)) if (name !== keep) fs.rmSync(path.join(CACHE_DIR, name), { recursive: true, force: true });
  } catch {
    // Nothing to prune.
  }
}

/** The app's files: from the cache when the inputs are unchanged, else built (and cached). */
export async function loadWebBundle(opts: { cache?: boolean } = {}): Promise<WebBundle> {
  const useCache = opts.cache ?? true;
  const key = inputKey();
  const dir = path.join(CACHE_DIR, key);
  let files = useCache ? readCached(dir) : null;
  if (files === null) {
    const built = await bundleWebApp();
    files = new Map(await Promise.all([...built].map(async ([name, raw]) => [name, await compress(name, raw)] as const)));
    if (useCache) {
      writeCache(dir, files);
      pruneCache(key);
    }
  }
  const index = files.get("index.html");
  if (!index) throw new Error("web app build produced no index.html");
  files.delete("index.html");
  return { index, files };
}
