/**
 * The house rules of ARCHITECTURE.md, checked on every import of src/ and of web/src (type-only
 * imports included): imports go one way (the allowed-edges tables below); no two folders import
 * each other, nested ones included, and a subfolder takes from its parent folder only the files
 * SUBFOLDER_SHARED names; the resource folders of actions/ import each other exactly as
 * ARCHITECTURE.md's resource table says; only store/ holds queries.
 *
 * Each of these was tried once in the real tree, failed here as it should, and was reverted: a
 * value import of events/queue-manager.ts in events/kinds/messages.ts (a subfolder taking a
 * non-shared file of its parent), of web/src/state/feed.ts in web/src/api/client.ts (api/
 * reaching up to state/), of api/client.ts in web/src/views/Sidebar.tsx (a view calling the
 * API), and an import of actions/groups/ in actions/channels/ (an edge the resource table lacks).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Units of the layering: a top folder (by its name), or a top-level file (by its name without extension). */
type Unit = string;

/** What a unit may import, besides itself and its tree's shared units; from `typesOnly` units, types only. */
type Rule = { imports: readonly Unit[]; typesOnly?: readonly Unit[] };

/** A program whose imports are checked: its folder, its units' rules, and the files subfolders share. */
type Tree = {
  dir: string;
  /** Units every layer may import: program-wide concepts that import no other layer. */
  shared: readonly Unit[];
  /** The allowed edges; acyclic (tested), so no import cycle between top folders can form. */
  allowed: Readonly<Record<Unit, Rule>>;
  /**
   * Per folder, which of its own files its subfolders may import (names relative to the folder):
   * the definitions they are written with. Any other import of a parent's file is a violation,
   * and an edge for the cycle check. A name that no longer exists permits nothing.
   */
  subfolderShared: Readonly<Record<string, readonly string[]>>;
};

/** src/'s program-wide concepts (see Tree.shared). */
const SRC_SHARED: readonly Unit[] = ["errors", "config", "clock", "secrets", "version", "uri-template", "log", "collections"];

/** src/: the server. */
export const SRC: Tree = {
  dir: path.join(ROOT, "src"),
  shared: SRC_SHARED,
  allowed: {
    server: { imports: ["http", "actions", "events", "rate-limit", "store", "push-thread"] },
    "push-thread": { imports: ["actions", "events", "rate-limit", "store"] },
    "push-thread-entry": { imports: ["push-thread"] },
    cli: { imports: ["server", "actions", "present", "permissions", "formats", "store", "model"] },
    http: { imports: ["actions", "events", "permissions", "files", "rate-limit", "store", "model"], typesOnly: ["store"] },
    actions: { imports: ["register", "events", "narrow", "present", "permissions", "markdown", "files", "formats", "rate-limit", "outgoing-http", "store", "model"] },
    register: { imports: ["events", "present", "permissions", "store", "model"] },
    events: { imports: ["present", "permissions", "store"] },
    narrow: { imports: ["permissions", "store", "model"] },
    present: { imports: ["permissions", "markdown", "store", "model"], typesOnly: ["store"] },
    permissions: { imports: ["store", "model"] },
    markdown: { imports: [] },
    files: { imports: [] },
    formats: { imports: [] },
    store: { imports: ["model"] },
    model: { imports: [] },
    "rate-limit": { imports: [] },
    "outgoing-http": { imports: [] },
    ...Object.fromEntries(SRC_SHARED.map((unit) => [unit, { imports: [] }])),
  },
  subfolderShared: {
    // The action context and withTransaction; the loop of the persisted-job workers.
    actions: ["context.ts", "job-loop.ts"],
    // What a queue asks of the events it is given (the builders' options).
    events: ["queue-options.ts"],
    // What route files are written with: the endpoint, parameter parsing, authentication, the web bundle and its compression.
    http: ["endpoint.ts", "params.ts", "stream-params.ts", "auth.ts", "web-bundle.ts", "compression.ts"],
    // The tar format, which backups (cli/) and the Zulip export (formats/zulip/) write, and how both stage a file (a hard link, else a copy).
    formats: ["tar.ts", "link-or-copy.ts"],
  },
};

/** web/src: the browser app. Views call state; state calls the API; views take only types from api/. */
export const WEB: Tree = {
  dir: path.join(ROOT, "web/src"),
  shared: [],
  allowed: {
    main: { imports: ["views", "state"] },
    views: { imports: ["state", "api"], typesOnly: ["api"] },
    state: { imports: ["api"] },
    api: { imports: [] },
  },
  subfolderShared: {
    // The pieces views are written with: time and emoji formatting, popover placement, the emoji
    // picker, and the server's rendered HTML as the feed shows it.
    views: ["format.ts", "popover.ts", "EmojiPicker.tsx", "RenderedHtml.tsx"],
  },
};

/** Packages that reach the database: only store/ may import their values. */
const DATABASE_PACKAGES: ReadonlySet<string> = new Set(["kysely", "better-sqlite3", "pg"]);

/** Query-builder calls: only store/ builds queries. */
const QUERY_CALL = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom)\(|\bsql\s*[`<]|\.executeQuery\(/;

/**
 * `store.transact` opens a write transaction; only actions/context.ts may: `withTransaction`, so its
 * guard against nested transactions (TransactionGuard) sees every request's, and
 * `withBackgroundTransaction` for background batches that publish nothing.
 */
const TRANSACT_CALL = /\.transact\(/;
const TRANSACT_CALLER = "actions/context.ts";

type Import = { from: string; spec: string; typeOnly: boolean };

/** Every import and re-export of a TypeScript source, with whether it carries types only. */
export function importsOf(file: string, text: string): Import[] {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
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

/** The unit of a path relative to its tree ("actions/messages/send.ts" -> "actions"; "cli.ts" -> "cli"). */
export function unitOf(rel: string): Unit {
  const parts = rel.split("/");
  return parts.length === 1 ? parts[0].replace(/\.tsx?$/, "") : parts[0];
}

/** The folder of a path relative to its tree ("" for a top-level file). */
function folderOf(rel: string): string {
  return rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "";
}

/** Whether an import of `targetRel` from a subfolder is its parent's shared file (or no parent's file at all). */
function sharedWithSubfolder(tree: Tree, rel: string, targetRel: string): boolean {
  const [from, to] = [folderOf(rel), folderOf(targetRel)];
  if (to === "" || !from.startsWith(`${to}/`)) return true;
  return tree.subfolderShared[to]?.includes(targetRel.slice(to.length + 1)) === true;
}

/** The rule an import breaks, or null. `rel` and `targetRel` are relative to the tree's folder. */
export function violation(tree: Tree, rel: string, imp: Import, targetRel: string | null): string | null {
  const from = unitOf(rel);
  if (targetRel === null) {
    if (tree === SRC && from !== "store" && DATABASE_PACKAGES.has(imp.spec) && !imp.typeOnly) return `${rel} imports ${imp.spec} (only store/ talks to the database)`;
    return null;
  }
  if (targetRel.endsWith(".css")) return null; // the web app's style sheet: no code
  if (!sharedWithSubfolder(tree, rel, targetRel)) {
    const parent = folderOf(targetRel);
    return `${rel} -> ${targetRel}: a subfolder takes from ${parent}/ only its shared files (${(tree.subfolderShared[parent] ?? []).join(", ") || "none"})`;
  }
  const to = unitOf(targetRel);
  if (from === to || tree.shared.includes(to)) return null;
  const rule = tree.allowed[from];
  if (!rule) return `${rel}: unit "${from}" is not in the allowed-edges table`;
  if (!rule.imports.includes(to)) return `${rel} -> ${targetRel}: ${from} may not import ${to}`;
  if (rule.typesOnly?.includes(to) && !imp.typeOnly) {
    return `${rel} -> ${targetRel}: ${from} takes only types from ${to}/${tree === SRC ? " (it must not query)" : ""}`;
  }
  return null;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

type TreeImport = { rel: string; imp: Import; targetRel: string | null };
const importsByTree = new Map<Tree, TreeImport[]>();

/** Every import of a tree, with the importing and imported files relative to its folder (null: a package). */
function treeImports(tree: Tree): TreeImport[] {
  const known = importsByTree.get(tree);
  if (known) return known;
  const all = sourceFiles(tree.dir).flatMap((file) => {
    const rel = path.relative(tree.dir, file).split(path.sep).join("/");
    return importsOf(file, fs.readFileSync(file, "utf8")).map((imp) => {
      const targetRel = imp.spec.startsWith(".") ? path.relative(tree.dir, path.resolve(path.dirname(file), imp.spec)).split(path.sep).join("/") : null;
      return { rel, imp, targetRel };
    });
  });
  importsByTree.set(tree, all);
  return all;
}

/** Every broken import rule of a tree; in src/, queries and transactions where they may not be. */
function violations(tree: Tree): string[] {
  const found: string[] = [];
  for (const { rel, imp, targetRel } of treeImports(tree)) {
    if (targetRel?.startsWith("..")) {
      found.push(`${rel} imports ${imp.spec}, outside ${path.relative(ROOT, tree.dir)}/`);
      continue;
    }
    const broken = violation(tree, rel, imp, targetRel);
    if (broken) found.push(broken);
  }
  if (tree !== SRC) return found;
  for (const file of sourceFiles(tree.dir)) {
    const rel = path.relative(tree.dir, file).split(path.sep).join("/");
    fs.readFileSync(file, "utf8").split("\n").forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      if (unitOf(rel) !== "store" && QUERY_CALL.test(line)) found.push(`${rel}:${i + 1} builds a query outside store/: ${line.trim()}`);
      if (rel !== TRANSACT_CALLER && TRANSACT_CALL.test(line)) found.push(`${rel}:${i + 1} opens a transaction outside withTransaction: ${line.trim()}`);
    });
  }
  return found;
}

/**
 * The imports between folders of a tree (type-only ones included): every folder counts, nested
 * ones too (actions/messages and actions/users are two); a top-level file counts as its own. A
 * subfolder's import of its parent's shared file (SUBFOLDER_SHARED) is not an edge.
 */
function folderEdges(tree: Tree): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { rel, targetRel } of treeImports(tree)) {
    if (targetRel === null) continue;
    const [a, b] = [folderOf(rel) || rel, folderOf(targetRel) || targetRel];
    if (a === b || (a.startsWith(`${b}/`) && sharedWithSubfolder(tree, rel, targetRel))) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)?.add(b);
  }
  return edges;
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

/** A cycle in a tree's table, as a path of units, or null. */
function tableCycle(tree: Tree): Unit[] | null {
  const state = new Map<Unit, "open" | "done">();
  const walk = (unit: Unit, trail: Unit[]): Unit[] | null => {
    if (state.get(unit) === "done") return null;
    if (state.get(unit) === "open") return [...trail.slice(trail.indexOf(unit)), unit];
    state.set(unit, "open");
    for (const next of [...(tree.allowed[unit]?.imports ?? []), ...(tree.shared.includes(unit) ? [] : tree.shared)]) {
      const cycle = walk(next, [...trail, unit]);
      if (cycle) return cycle;
    }
    state.set(unit, "done");
    return null;
  };
  for (const unit of Object.keys(tree.allowed)) {
    const cycle = walk(unit, []);
    if (cycle) return cycle;
  }
  return null;
}

/**
 * ARCHITECTURE.md's resource table (the one whose header is `| resource | imports |`): each
 * resource folder of actions/ with the resource folders it imports ("nothing" for none), in
 * its rows' order, top to bottom.
 */
export function resourceTable(markdown: string): Array<{ resource: string; imports: string[] }> {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => /^\|\s*resource\s*\|\s*imports\s*\|\s*$/.test(l));
  assert.ok(start >= 0, "ARCHITECTURE.md has no `| resource | imports |` table");
  const rows: Array<{ resource: string; imports: string[] }> = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const [resource, imports] = line.split("|").slice(1, 3).map((cell) => cell.trim());
    const names = (cell: string) => cell.split(",").map((n) => n.trim().replace(/^`|`$/g, "").replace(/\/$/, "")).filter((n) => n !== "" && n !== "nothing");
    rows.push({ resource: names(resource)[0], imports: names(imports) });
  }
  return rows;
}

/** Where the resource table and the resource folders' imports (`from -> to` pairs) differ. */
export function resourceMismatches(table: ReadonlyArray<{ resource: string; imports: readonly string[] }>, actual: ReadonlySet<string>, folders: readonly string[]): string[] {
  const found: string[] = [];
  const rowOf = new Map(table.map((row, i) => [row.resource, i]));
  for (const folder of folders) if (!rowOf.has(folder)) found.push(`actions/${folder}/ has no row in the resource table`);
  table.forEach((row, i) => {
    if (!folders.includes(row.resource)) found.push(`the resource table's row ${row.resource}/ names no folder of actions/`);
    for (const to of row.imports) {
      if (!actual.has(`${row.resource} -> ${to}`)) found.push(`the resource table lists ${row.resource} -> ${to}, which no import makes`);
      if ((rowOf.get(to) ?? -1) <= i) found.push(`the resource table lists ${row.resource} -> ${to}, but ${to}/ is not a row below ${row.resource}/`);
    }
  });
  const listed = new Set(table.flatMap((row) => row.imports.map((to) => `${row.resource} -> ${to}`)));
  for (const edge of actual) if (!listed.has(edge)) found.push(`actions/${edge.replace(" -> ", "/ imports actions/")}/, which the resource table does not list`);
  return found;
}

/** The imports between resource folders of src/actions/, as `from -> to` pairs. */
function resourceEdges(): Set<string> {
  const resource = (folder: string) => /^actions\/([^/]+)/.exec(folder)?.[1];
  const out = new Set<string>();
  for (const [a, targets] of folderEdges(SRC)) {
    for (const b of targets) {
      const [from, to] = [resource(a), resource(b)];
      if (from !== undefined && to !== undefined && from !== to) out.add(`${from} -> ${to}`);
    }
  }
  return out;
}

describe("layers", () => {
  test("the allowed-edges tables have no cycle, and shared units import no layer", () => {
    for (const tree of [SRC, WEB]) {
      assert.equal(tableCycle(tree), null);
      for (const unit of tree.shared) assert.deepEqual(tree.allowed[unit].imports, [], unit);
    }
  });

  test("every import of src/ is an allowed edge, only store/ builds queries, only actions/context.ts opens transactions", () => {
    const found = violations(SRC);
    assert.deepEqual(found, [], `${found.length} broken rules:\n${found.join("\n")}`);
  });

  test("every import of web/src is an allowed edge: views call state, state calls the API", () => {
    const found = violations(WEB);
    assert.deepEqual(found, [], `${found.length} broken rules:\n${found.join("\n")}`);
  });

  test("no two folders import each other, directly or around a circle, in src/ or web/src", () => {
    assert.deepEqual(cyclesOf(folderEdges(SRC)), [], "src/");
    assert.deepEqual(cyclesOf(folderEdges(WEB)), [], "web/src");
  });

  test("the resource folders of actions/ import each other as ARCHITECTURE.md's resource table says", () => {
    const table = resourceTable(fs.readFileSync(path.join(ROOT, "ARCHITECTURE.md"), "utf8"));
    const folders = fs.readdirSync(path.join(SRC.dir, "actions"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    const found = resourceMismatches(table, resourceEdges(), folders);
    assert.deepEqual(found, [], `ARCHITECTURE.md's resource table and the code differ:\n${found.join("\n")}`);
  });

  test("the check catches deliberate violations", () => {
    const value = { from: "x", spec: "", typeOnly: false };
    const typeOnly = { ...value, typeOnly: true };
    assert.match(violation(SRC, "store/users/users.ts", value, "narrow/parse.ts") ?? "", /store may not import narrow/);
    assert.match(violation(SRC, "store/users/users.ts", typeOnly, "permissions/check.ts") ?? "", /store may not import permissions/, "type-only imports count");
    assert.match(violation(SRC, "events/queue.ts", value, "register/provider.ts") ?? "", /events may not import register/);
    assert.match(violation(SRC, "present/users.ts", value, "store/users/users.ts") ?? "", /must not query/);
    assert.equal(violation(SRC, "present/users.ts", typeOnly, "store/schema/database.ts"), null);
    assert.equal(violation(SRC, "present/users.ts", value, "model/roles.ts"), null);
    assert.match(violation(SRC, "model/roles.ts", typeOnly, "store/schema/database.ts") ?? "", /model may not import store/);
    assert.match(violation(SRC, "actions/messages/send.ts", { ...value, spec: "kysely" }, null) ?? "", /only store\//);
    assert.equal(violation(SRC, "actions/messages/send.ts", { ...typeOnly, spec: "kysely" }, null), null);
    assert.equal(violation(SRC, "actions/messages/send.ts", value, "errors.ts"), null);
    // A subfolder takes only its parent's shared files, type-only imports included.
    assert.match(violation(SRC, "events/kinds/messages.ts", value, "events/queue-manager.ts") ?? "", /only its shared files/);
    assert.match(violation(SRC, "events/kinds/messages.ts", typeOnly, "events/types.ts") ?? "", /only its shared files/);
    assert.equal(violation(SRC, "events/kinds/messages.ts", typeOnly, "events/queue-options.ts"), null);
    assert.equal(violation(SRC, "actions/messages/send.ts", value, "actions/context.ts"), null);
    assert.match(violation(SRC, "actions/messages/send.ts", value, "actions/other.ts") ?? "", /only its shared files/);
    assert.equal(violation(SRC, "events/adapters.ts", value, "events/kinds/messages.ts"), null, "a folder uses its subfolders");
    // web/src: views call state (types only from api/), state calls the API, api/ imports neither.
    assert.match(violation(WEB, "api/client.ts", value, "state/feed.ts") ?? "", /api may not import state/);
    assert.match(violation(WEB, "state/feed.ts", typeOnly, "views/Feed.tsx") ?? "", /state may not import views/);
    assert.match(violation(WEB, "views/Sidebar.tsx", value, "api/client.ts") ?? "", /views takes only types from api/);
    assert.equal(violation(WEB, "views/Sidebar.tsx", typeOnly, "api/types.ts"), null);
    assert.equal(violation(WEB, "views/admin/Users.tsx", value, "views/forms/action.tsx"), null);
    assert.match(violation(WEB, "views/admin/Users.tsx", value, "views/App.tsx") ?? "", /only its shared files \(format.ts, /);
    assert.equal(violation(WEB, "views/compose/Toolbar.tsx", value, "views/EmojiPicker.tsx"), null, "a shared view piece");
    const parsed = importsOf("a.ts", 'import type { A } from "./a.ts";\nimport { type B } from "./b.ts";\nimport { c, type D } from "./c.ts";\nexport * from "./d.ts";\n');
    assert.deepEqual(parsed.map((i) => [i.spec, i.typeOnly]), [["./a.ts", true], ["./b.ts", true], ["./c.ts", false], ["./d.ts", false]]);
    assert.deepEqual(importsOf("a.tsx", 'import { x } from "./x.ts";\nconst el = <div>{x}</div>;\n').map((i) => i.spec), ["./x.ts"]);
    assert.deepEqual(cyclesOf(new Map([["a", new Set(["b"])], ["b", new Set(["c"])], ["c", new Set(["a"])], ["d", new Set(["a"])]])), [["a", "b", "c"]]);
    assert.deepEqual(cyclesOf(new Map([["a", new Set(["b"])], ["b", new Set(["c"])]])), []);
    assert.ok(QUERY_CALL.test("await tx.selectFrom(\"users\")") && QUERY_CALL.test("sql`select 1`") && !QUERY_CALL.test("const sqlText = 1"));
    // The resource table: read from Markdown, and every difference from the code named.
    const table = resourceTable("text\n\n| resource | imports |\n| --- | --- |\n| `bots/` | `messages/` |\n| `messages/` | `users/`, `push/` |\n| `users/` | nothing |\n| `push/` | nothing |\n\nmore\n");
    assert.deepEqual(table, [{ resource: "bots", imports: ["messages"] }, { resource: "messages", imports: ["users", "push"] }, { resource: "users", imports: [] }, { resource: "push", imports: [] }]);
    const folders = ["bots", "messages", "users", "push"];
    assert.deepEqual(resourceMismatches(table, new Set(["bots -> messages", "messages -> users", "messages -> push"]), folders), []);
    assert.deepEqual(resourceMismatches(table, new Set(["bots -> messages", "messages -> users", "messages -> push", "users -> push"]), folders), ["actions/users/ imports actions/push/, which the resource table does not list"]);
    assert.deepEqual(resourceMismatches(table, new Set(["bots -> messages", "messages -> users"]), folders), ["the resource table lists messages -> push, which no import makes"]);
    assert.match(resourceMismatches(table, new Set(), [...folders, "email"]).join("\n"), /actions\/email\/ has no row/);
    const upward = [{ resource: "messages", imports: [] }, { resource: "users", imports: ["messages"] }];
    assert.match(resourceMismatches(upward, new Set(["users -> messages"]), ["users", "messages"]).join("\n"), /is not a row below/);
  });
});
