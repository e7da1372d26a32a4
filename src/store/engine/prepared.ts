/**
 * Queries built and compiled once per kind of database, then run with new values. Kysely builds
 * an operation tree and compiles it to SQL on every call; on a message send that was about a
 * tenth of the server's CPU. A prepared query's builder runs once, and names each parameter
 * explicitly with `param("name")`: a placeholder Kysely binds as a parameter, never a value.
 * So the SQL must not depend on the values: no `in` lists, no branches, no `??` defaults, no
 * method calls on a parameter (pass values already transformed). TypeScript refuses a
 * placeholder where a value is expected, using one as a primitive (template string, arithmetic,
 * `String()`, JSON) throws, and a placeholder the builder asked for but left out of the SQL
 * (a branch on it) throws when the query is compiled. Every prepared query is registered by
 * name, so that a test runs each against its dynamic twin (the builder run with the values).
 */
import { ValueNode, type CompiledQuery, type Compilable, type Expression, type OperationNode, type RawBuilder } from "kysely";
import type { Db } from "../schema/types.ts";
import { nameStatement } from "./pg-named-statements.ts";

/** Where parameter `name` goes in the compiled SQL: an expression Kysely binds as a parameter. */
export class Placeholder<T> implements Expression<T> {
  readonly #node: ValueNode;

  constructor(readonly name: string) {
    this.#node = ValueNode.create(this);
  }

  /** Kysely's type marker; a placeholder has no value while the query is built. */
  get expressionType(): T | undefined {
    return undefined;
  }

  /** The parameter node Kysely compiles to `?` / `$n`. */
  toOperationNode(): OperationNode {
    return this.#node;
  }

  /** Refuses conversion to a primitive: the builder's SQL would be frozen with the conversion. */
  [Symbol.toPrimitive](): never {
    throw new PlaceholderUsedAsValueError(this.name);
  }

  /** Refuses conversion to a string (see the primitive conversion). */
  toString(): never {
    throw new PlaceholderUsedAsValueError(this.name);
  }

  /** Refuses conversion to a primitive (see the primitive conversion). */
  valueOf(): never {
    throw new PlaceholderUsedAsValueError(this.name);
  }

  /** Refuses serialization as JSON (see the primitive conversion). */
  toJSON(): never {
    throw new PlaceholderUsedAsValueError(this.name);
  }
}

/** A placeholder used as a JavaScript value while a prepared query was built. */
export class PlaceholderUsedAsValueError extends Error {
  constructor(name: string, detail = "used as a value") {
    super(`prepared query parameter "${name}" ${detail}: pass param("${name}") to Kysely as is, and transform values before the call`);
  }
}

/** The builder's `param`: the placeholder of each named parameter of `P`. */
export type Placeholders<P> = <K extends keyof P & string>(name: K) => Placeholder<P[K]>;

/** A prepared query's builder: one query of `db`, its parameters taken from `param`. */
type PreparedBuilder<P, R> = (db: Db, param: Placeholders<P>) => Compilable<R> | RawBuilder<R>;

/** A prepared query as the registry lists it, for the test that runs each against its dynamic twin. */
export interface PreparedQuery {
  readonly name: string;
  /** The query's builder (method syntax: the registry holds builders of every parameter type). */
  build(db: Db, param: Placeholders<Record<string, unknown>>): Compilable<unknown> | RawBuilder<unknown>;
  /** The frozen query of `db`'s kind of database with `values` bound: what `run` executes. */
  bind(db: Db, values: Record<string, unknown>): CompiledQuery<unknown>;
  /** The query function `prepared` returned. */
  run(db: Db, values: Record<string, unknown>): Promise<unknown[]>;
}

const registry = new Map<string, PreparedQuery>();

/** Every prepared query of the modules loaded so far. */
export function preparedQueries(): PreparedQuery[] {
  return [...registry.values()];
}

type Compiled<R> = { query: CompiledQuery<R>; slots: Array<string | null> };

function isRawBuilder<R>(built: Compilable<R> | RawBuilder<R>): built is RawBuilder<R> {
  return "isRawBuilder" in built && built.isRawBuilder === true;
}

/** Compiles `build`'s query with placeholders; `slots` names the parameter each bound value comes from. */
function compileWithPlaceholders<P, R>(name: string, build: PreparedBuilder<P, R>, db: Db): Compiled<R> {
  const asked = new Set<string>();
  const param = <K extends keyof P & string>(key: K): Placeholder<P[K]> => {
    asked.add(key);
    return new Placeholder<P[K]>(key);
  };
  const built = build(db, param);
  const query = isRawBuilder(built) ? built.compile(db) : built.compile();
  const slots = query.parameters.map((p) => (p instanceof Placeholder ? p.name : null));
  for (const key of asked) {
    if (!slots.includes(key)) throw new PlaceholderUsedAsValueError(key, `is not in the SQL of prepared query "${name}" (a branch on it?)`);
  }
  return { query, slots };
}

/**
 * A query function that runs `build`'s query, compiled once per dialect, with new parameters
 * (a missing one binds null). `name` registers it for the twin test; names are unique.
 */
export function prepared<P extends Record<string, unknown>, R>(name: string, build: PreparedBuilder<P, R>): (db: Db, p: P) => Promise<R[]> {
  if (registry.has(name)) throw new Error(`two prepared queries are named "${name}"`);
  const byDialect = new Map<unknown, Compiled<R>>();
  const bind = (db: Db, p: P): CompiledQuery<R> => {
    const dialect = db.getExecutor().adapter.constructor;
    let compiled = byDialect.get(dialect);
    if (!compiled) {
      compiled = compileWithPlaceholders(name, build, db);
      byDialect.set(dialect, compiled);
      // Used only by PostgreSQL's connections (a SQLite text never reaches them).
      nameStatement(name, compiled.query.sql);
    }
    const { query, slots } = compiled;
    const parameters = slots.map((slot, i) => (slot === null ? query.parameters[i] : (p[slot] ?? null)));
    // Field by field: a property after a spread takes V8's slow path (see actions/context.ts).
    return { query: query.query, queryId: query.queryId, sql: query.sql, parameters };
  };
  const run = async (db: Db, p: P): Promise<R[]> => (await db.executeQuery(bind(db, p))).rows;
  registry.set(name, { name, build, bind, run });
  return run;
}
