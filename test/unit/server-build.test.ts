/**
 * bin/server-build.js: src/ compiled file by file, with relative imports pointing at the compiled
 * files; concurrent starts agree on one directory; builds nobody started from for a day go.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BUILDER = path.join(ROOT, "bin/server-build.js");

type Builder = { buildServer(dist?: string): Promise<string> };

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

describe("compiling the server (bin/server-build.js)", () => {
  let dist: string;
  let built: string;
  let builder: Builder;

  before(async () => {
    builder = (await import(BUILDER)) as Builder;
    dist = fs.mkdtempSync(path.join(os.tmpdir(), "parley-dist-"));
    // Left by earlier builds: one unused for two days, one started from an hour ago.
    const stale = path.join(dist, "stale");
    const recent = path.join(dist, "recent");
    for (const dir of [stale, recent]) fs.mkdirSync(dir);
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    fs.utimesSync(stale, twoDaysAgo, twoDaysAgo);
    // Three starts at once, as a test run or `serve --processes 3` makes them.
    const dirs = await Promise.all([builder.buildServer(dist), builder.buildServer(dist), builder.buildServer(dist)]);
    assert.equal(new Set(dirs).size, 1);
    built = dirs[0]!;
  });

  after(() => fs.rmSync(dist, { recursive: true, force: true }));

  test("concurrent builds leave one directory; a day-old build is removed, a recent one kept", () => {
    assert.deepEqual(fs.readdirSync(dist).sort(), [path.basename(built), "recent"].sort());
  });

  test("every source file has its compiled file, with the same layout", () => {
    const sources = filesUnder(path.join(ROOT, "src")).filter((f) => f.endsWith(".ts"));
    const compiled = new Set(filesUnder(built));
    const missing = sources.map((f) => f.replace(/\.ts$/, ".mjs")).filter((f) => !compiled.has(f));
    assert.deepEqual(missing, []);
    assert.ok(compiled.has("http/routes/events.mjs"));
  });

  test("relative imports name compiled files; packages stay imports, not bundled copies", () => {
    const app = fs.readFileSync(path.join(built, "http/app.mjs"), "utf8");
    assert.match(app, /from "\.\.\/actions\/context\.mjs"/);
    assert.match(app, /from "fastify"/);
    const withTsImports = filesUnder(built)
      .filter((f) => f.endsWith(".mjs"))
      .filter((f) => /(?:from|import\()\s*"\.{1,2}\/[^"]*\.ts"/.test(fs.readFileSync(path.join(built, f), "utf8")));
    assert.deepEqual(withTsImports, []);
  });

  test("unchanged sources reuse the build", async () => {
    assert.equal(await builder.buildServer(dist), built);
  });
});
