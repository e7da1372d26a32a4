/**
 * bin/server-build.js: src/ compiled into one bundle (cli.mjs, the push thread's entry and the
 * chunks they share), packages left to node_modules but for the bundled ones; concurrent starts
 * agree on one directory; builds nobody started from for a day go.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BUILDER = path.join(ROOT, "bin/server-build.js");

type Builder = { buildServer(dist?: string): Promise<string>; BUNDLED_PACKAGES: string[] };

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

  test("the entry points sit at the top, beside the chunks their code shares", () => {
    const compiled = filesUnder(built).filter((f) => f.endsWith(".mjs"));
    assert.ok(compiled.includes("cli.mjs"));
    // push-thread.ts finds it beside the chunk holding its own code.
    assert.ok(compiled.includes("push-thread-entry.mjs"));
    assert.deepEqual(compiled.filter((f) => f.includes(path.sep)), []);
    // serve's code (server.ts) is loaded only to serve: admin commands start without it.
    assert.doesNotMatch(fs.readFileSync(path.join(built, "cli.mjs"), "utf8"), /function buildApp\(/);
  });

  test("packages stay imports of node_modules, but for the bundled ones", () => {
    const code = filesUnder(built)
      .filter((f) => f.endsWith(".mjs"))
      .map((f) => fs.readFileSync(path.join(built, f), "utf8"))
      .join("\n");
    assert.match(code, /from "fastify"/);
    assert.deepEqual(builder.BUNDLED_PACKAGES, ["kysely", "zod"]);
    for (const name of builder.BUNDLED_PACKAGES) assert.doesNotMatch(code, new RegExp(`from "${name}(?:/[^"]*)?"`));
    assert.doesNotMatch(code, /(?:from|import\()\s*"\.{1,2}\/[^"]*\.ts"/);
  });

  test("unchanged sources reuse the build", async () => {
    assert.equal(await builder.buildServer(dist), built);
  });
});
