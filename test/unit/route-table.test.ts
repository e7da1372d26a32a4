/** http/route-table.ts lists every route file of http/routes/, each under its own name. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ROUTE_FILES } from "../../src/http/route-table.ts";

const ROUTES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/http/routes");

test("every file of http/routes is in the route table, under its name", async () => {
  const files = fs.readdirSync(ROUTES).filter((f) => f.endsWith(".ts")).map((f) => f.replace(/\.ts$/, "")).sort();
  assert.deepEqual(Object.keys(ROUTE_FILES).sort(), files);
  for (const name of files) {
    const mod: unknown = await import(path.join(ROUTES, `${name}.ts`));
    assert.equal(ROUTE_FILES[name], mod, `${name} names another file's module`);
  }
});
