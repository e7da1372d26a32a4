/**
 * The house rules of ARCHITECTURE.md, checked on every import of src/: imports go one way (the
 * allowed-edges table below, type-only imports included), and only store/ holds queries.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src");

/** Units of the layering: a folder of src/ (by its name), or a top-level file (by its name without `.ts`). */
type Unit = string;

/** Units every layer may import: program-wide concepts that import no other layer. */
const SHARED: readonly Unit[] = ["errors", "config", "clock", "secrets", "version", "uri-template", "log", "collections"];

/**
 * What each unit may import, besides itself and SHARED. The table is acyclic (tested), so no
 * import cycle between folders can form. `storeTypes` marks units that may take only types and
 * the pure data-model modules (STORE_PURE) from store/: they never reach the database.
 */
const ALLOWED: Record<Unit, { imports: readonly Unit[]; storeTypesOnly?: boolean }> = {
  server: { imports: ["http", "actions", "events", "rate-limit", "store", "push-thread"] },
  "push-thread": { imports: ["actions", "events", "rate-limit", "store"] },
  "push-thread-entry": { imports: ["push-thread"] },
  cli: { imports: ["server", "actions", "present", "permissions", "store"] },
  http: { imports: ["actions", "events", "permissions", "files", "rate-limit", "store"], storeTypesOnly: true },
  actions: { imports: ["register", "events", "narrow", "present", "permissions", "markdown", "files", "rate-limit", "outgoing-http", "store"] },
  register: { imports: ["events", "present", "permissions", "store"] },
  events: { imports: ["present", "permissions", "store"] },
  narrow: { imports: ["permissions", "store"] },
  present: { imports: ["permissions", "markdown", "store"], storeTypesOnly: true },
  permissions: { imports: ["store"] },
  markdown: { imports: [] },
  files: { imports: [] },
  store: { imports: [] },
  "rate-limit": { imports: [] },
  "outgoing-http": { imports: [] },
  errors: { imports: [] },
  config: { imports: [] },
  clock: { imports: [] },
  secrets: { imports: [] },
  version: { imports: [] },
  "uri-template": { imports: [] },
  log: { imports: [] },
  collections: { imports: [] },
};

/** store/ modules that hold no query: the data model's constants and pure rules over loaded rows. */
const STORE_PURE: ReadonlySet<string> = new Set(["store/roles.ts", "store/emails.ts", "store/user-settings.ts", "store/search-words.ts"]);

/** Packages that reach the database: only store/ may import their values. */
const DATABASE_PACKAGES: ReadonlySet<string> = new Set(["kysely", "better-sqlite3", "pg"]);

/** Query-builder calls: only store/ builds queries. */
const QUERY_CALL = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom)\(|\bsql\s*[`<]|\.executeQuery\(/;

/**
 * `store.transact` opens a write transaction; only `withTransaction` may, so its guard against
 * nested transactions (TransactionGuard) sees every one.
 */
const TRANSACT_CALL = /\.transact\(/;
const TRANSACT_CALLER = "actions/context.ts";

type Import = { from: string; spec: string; typeOnly: boolean };

/** Every import and re-export of a TypeScript source, with whether it carries types only. */
export function importsOf(file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const namedTypesOnly =
        clause !== undefined && clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly);
      out.push({ from: file, spec: node.moduleSpecifier.text, typeOnly: clause?.isTypeOnly === true || namedTypesOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ from: file, spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
      out.push({ from: file, spec: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ from: file, spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The unit of a path relative to src/ ("actions/messages/send.ts" -> "actions"; "cli.ts" -> "cli"). */
export function unitOf(rel: string): Unit {
  const parts = rel.split("/");
  return parts.length === 1 ? parts[0].replace(/\.ts$/, "") : parts[0];
}

/** The rule an import breaks, or null. `rel` and `targetRel` are relative to src/. */
export function violation(rel: string, imp: Import, targetRel: string | null): string | null {
  const from = unitOf(rel);
  if (targetRel === null) {
    if (from !== "store" && DATABASE_PACKAGES.has(imp.spec) && !imp.typeOnly) return `${rel} imports ${imp.spec} (only store/ talks to the database)`;
    return null;
  }
  const to = unitOf(targetRel);
  if (from === to || SHARED.includes(to)) return null;
  const rule = ALLOWED[from];
  if (!rule) return `${rel}: unit "${from}" is not in the allowed-edges table`;
  if (!rule.imports.includes(to)) return `${rel} -> ${targetRel}: ${from} may not import ${to}`;
  if (to === "store" && rule.storeTypesOnly && !imp.typeOnly && !STORE_PURE.has(targetRel)) {
    return `${rel} -> ${targetRel}: ${from} takes only types and pure model modules from store/ (it must not query)`;
  }
  return null;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith(".ts") ? [full] : [];
  });
}

/** Every broken rule in src/. */
function violations(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const rel = path.relative(SRC, file).split(path.sep).join("/");
    const text = fs.readFileSync(file, "utf8");
    for (const imp of importsOf(file, text)) {
      let targetRel: string | null = null;
      if (imp.spec.startsWith(".")) {
        const target = path.resolve(path.dirname(file), imp.spec);
        targetRel = path.relative(SRC, target).split(path.sep).join("/");
        if (targetRel.startsWith("..")) {
          found.push(`${rel} imports ${imp.spec}, outside src/`);
          continue;
        }
      }
      const broken = violation(rel, imp, targetRel);
      if (broken) found.push(broken);
    }
    text.split("\n").forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      if (unitOf(rel) !== "store" && QUERY_CALL.test(line)) found.push(`${rel}:${i + 1} builds a query outside store/: ${line.trim()}`);
      if (rel !== TRANSACT_CALLER && TRANSACT_CALL.test(line)) found.push(`${rel}:${i + 1} opens a transaction outside withTransaction: ${line.trim()}`);
    });
  }
  return found;
}

/**
 * Folders of src/ that import each other in a circle (type-only imports included), as lists of
 * folders. Every folder counts, nested ones too (actions/messages and actions/users are two);
 * a top-level file counts as its own. A folder's import of a file in one of its ancestors (a
 * resource folder's use of actions/context.ts, events/kinds' use of events/types.ts) is the
 * child using its parent's shared definitions, not an edge.
 */
function folderCycles(): string[][] {
  const node = (rel: string): string => (rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : rel);
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const rel = path.relative(SRC, file).split(path.sep).join("/");
    for (const imp of importsOf(file, fs.readFileSync(file, "utf8"))) {
      if (!imp.spec.startsWith(".")) continue;
      const target = path.relative(SRC, path.resolve(path.dirname(file), imp.spec)).split(path.sep).join("/");
      const [a, b] = [node(rel), node(target)];
      if (a === b || a.startsWith(`${b}/`)) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a)?.add(b);
    }
  }
  return cyclesOf(edges);
}

/** The strongly connected components of two or more nodes: every cycle of a directed graph. */
export function cyclesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's strongly connected components: any component of two or more folders is a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (stack.includes(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w !== undefined) component.push(w);
      } while (w !== undefined && w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  return cycles;
}

/** A cycle in the table, as a path of units, or null. */
function tableCycle(): Unit[] | null {
  const state = new Map<Unit, "open" | "done">();
  const walk = (unit: Unit, trail: Unit[]): Unit[] | null => {
    if (state.get(unit) === "done") return null;
    if (state.get(unit) === "open") return [...trail.slice(trail.indexOf(unit)), unit];
    state.set(unit, "open");
    for (const next of [...(ALLOWED[unit]?.imports ?? []), ...(SHARED.includes(unit) ? [] : SHARED)]) {
      const cycle = walk(next, [...trail, unit]);
      if (cycle) return cycle;
    }
    state.set(unit, "done");
    return null;
  };
  for (const unit of Object.keys(ALLOWED)) {
    const cycle = walk(unit, []);
    if (cycle) return cycle;
  }
  return null;
}

describe("layers", () => {
  test("the allowed-edges table has no cycle, and shared units import no layer", () => {
    assert.equal(tableCycle(), null);
    for (const unit of SHARED) assert.deepEqual(ALLOWED[unit].imports, [], unit);
  });

  test("every import of src/ is an allowed edge, only store/ builds queries, only withTransaction opens transactions", () => {
    const found = violations();
    assert.deepEqual(found, [], `${found.length} broken rules:\n${found.join("\n")}`);
  });

  test("no two folders import each other, directly or around a circle", () => {
    assert.deepEqual(folderCycles(), []);
  });

  test("the check catches deliberate violations", () => {
    const value = { from: "x", spec: "", typeOnly: false };
    const typeOnly = { ...value, typeOnly: true };
    assert.match(violation("store/users.ts", value, "narrow/parse.ts") ?? "", /store may not import narrow/);
    assert.match(violation("store/users.ts", typeOnly, "permissions/check.ts") ?? "", /store may not import permissions/, "type-only imports count");
    assert.match(violation("events/queue.ts", value, "register/provider.ts") ?? "", /events may not import register/);
    assert.match(violation("present/users.ts", value, "store/users.ts") ?? "", /must not query/);
    assert.equal(violation("present/users.ts", typeOnly, "store/schema.ts"), null);
    assert.equal(violation("present/users.ts", value, "store/roles.ts"), null);
    assert.match(violation("actions/messages/send.ts", { ...value, spec: "kysely" }, null) ?? "", /only store\//);
    assert.equal(violation("actions/messages/send.ts", { ...typeOnly, spec: "kysely" }, null), null);
    assert.equal(violation("actions/messages/send.ts", value, "errors.ts"), null);
    const parsed = importsOf("a.ts", 'import type { A } from "./a.ts";\nimport { type B } from "./b.ts";\nimport { c, type D } from "./c.ts";\nexport * from "./d.ts";\n');
    assert.deepEqual(parsed.map((i) => [i.spec, i.typeOnly]), [["./a.ts", true], ["./b.ts", true], ["./c.ts", false], ["./d.ts", false]]);
    assert.deepEqual(cyclesOf(new Map([["a", new Set(["b"])], ["b", new Set(["c"])], ["c", new Set(["a"])], ["d", new Set(["a"])]])), [["a", "b", "c"]]);
    assert.deepEqual(cyclesOf(new Map([["a", new Set(["b"])], ["b", new Set(["c"])]])), []);
    assert.ok(QUERY_CALL.test("await tx.selectFrom(\"users\")") && QUERY_CALL.test("sql`select 1`") && !QUERY_CALL.test("const sqlText = 1"));
  });
});
