/**
 * Upstream coverage: every operation of both OpenAPI files is called without credentials; the
 * ones answered `404 Endpoint does not exist` must be exactly those docs/api-coverage.md lists
 * with a reason, and the counts must meet the floors issue 12 set (100 of FL 321's 116, 115 of
 * FL 420's 135).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import YAML from "yaml";
import { describeEachStore } from "../helpers/suite.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const SHARED = path.resolve(here, "../../../shared");
const DOC = path.resolve(here, "../../docs/api-coverage.md");
const METHODS = ["get", "post", "put", "patch", "delete"];
/** Documentation pages both files describe as operations. */
const DOC_PAGES = new Set(["POST /real-time", "POST /rest-error-handling", "POST /zulip-outgoing-webhook"]);

/** "METHOD /path" of every operation in an OpenAPI file. */
function operations(file: string): string[] {
  const doc = YAML.parse(fs.readFileSync(path.join(SHARED, file), "utf8"), { maxAliasCount: -1 }) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([p, item]) => METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${p}`));
}

/** The operations docs/api-coverage.md says are not answered, each with its reason. */
function documentedMisses(): Map<string, string> {
  const rows = fs.readFileSync(DOC, "utf8").matchAll(/^\| `((?:GET|POST|PUT|PATCH|DELETE) [^`]+)` \| (.+) \|$/gm);
  return new Map([...rows].map((m) => [m[1], m[2]]));
}

const FILES = [
  { file: "zulip-openapi.yaml", total: 116, floor: 100 },
  { file: "zulip-openapi-fl420-generated.yaml", total: 135, floor: 115 },
];

describeEachStore("upstream API coverage", (server) => {
  /** Whether the server has the operation (a path parameter stands as 1). */
  async function answered(op: string): Promise<boolean> {
    const [method, template] = op.split(" ");
    const res = await fetch(`${server.url}/api/v1${template.replace(/\{[^}]+\}/g, "1")}`, { method });
    const body = (await res.json()) as { msg?: string; code?: string };
    return !(res.status === 404 && body.code === "NOT_FOUND" && body.msg === "Endpoint does not exist");
  }

  for (const { file, total, floor } of FILES) {
    test(`${file}: at least ${floor} of ${total} answered; every miss documented`, async () => {
      const ops = operations(file);
      const counted = ops.filter((op) => !DOC_PAGES.has(op));
      assert.equal(counted.length, total);
      const misses: string[] = [];
      for (const op of ops) if (!(await answered(op))) misses.push(op);
      const documented = documentedMisses();
      assert.deepEqual(misses.filter((op) => !documented.has(op)), [], "operations not answered that docs/api-coverage.md does not list");
      const stale = [...documented.keys()].filter((op) => ops.includes(op) && !misses.includes(op));
      assert.deepEqual(stale, [], "operations docs/api-coverage.md lists as missing that are answered now: remove them");
      const answeredCount = counted.filter((op) => !misses.includes(op)).length;
      assert.ok(answeredCount >= floor, `${answeredCount} of ${total} answered, fewer than ${floor}`);
      const table = fs.readFileSync(DOC, "utf8");
      assert.ok(table.includes(`| \`../shared/${file}\``) && new RegExp(`\\| ${total} \\| ${answeredCount} \\|`).test(table), `docs/api-coverage.md's count row for ${file} should read ${total} | ${answeredCount}`);
    });
  }
});
