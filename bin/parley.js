#!/usr/bin/env node
// Runs the server from src/ compiled to plain JavaScript (bin/server-build.js: esbuild, cached in
// node_modules/.cache/parley-server, under a second on a change). Where that cannot be written,
// the TypeScript sources run through tsx's loader instead, which costs a thread of its own for
// the process's life.
import { buildServer } from "./server-build.js";

let entry;
try {
  entry = new URL("cli.mjs", `file://${await buildServer()}/`).href;
} catch (err) {
  process.stderr.write(`parley: could not compile the sources (${err instanceof Error ? err.message : String(err)}); running them through tsx\n`);
  const { register } = await import("tsx/esm/api");
  register();
  entry = "../src/cli.ts";
}
await import(entry);
