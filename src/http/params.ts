/**
 * Zulip's request-parameter conventions on zod: values arrive as strings (query string, form
 * or multipart body) or as JSON values; `json()` fields carry JSON inside the string. One parser
 * merges the sources, resolves aliases, lists unknown keys and words errors as Zulip does.
 */
import { z } from "zod";
import { ConfusingVarError, JsonableError, MissingArgumentError } from "../errors.ts";

const JSON_INVALID = "json_invalid";

function decodeInt(value: unknown): unknown {
  if (typeof value === "string" && /^\s*-?\d+\s*$/.test(value)) return Number(value);
  return value;
}

function decodeBool(value: unknown): unknown {
  if (value === "true") return true;
  if (value === "false") return false;
  return value;
}

function decodeJson(value: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    ctx.addIssue({ code: "custom", message: JSON_INVALID, params: { kind: JSON_INVALID } });
    return z.NEVER;
  }
}

/** A plain string parameter, taken as sent. */
export const str = () => z.string();

/**
 * The range of the database's integer columns (PostgreSQL `integer`): no id lies outside it,
 * and a query comparing such a column with a larger number fails rather than finding nothing.
 */
/**
 * Path parameters longer than this are refused (414). Long enough for a temporary upload URL's
 * file name (255 bytes, percent-encoded) and every name a route takes in its path.
 */
export const MAX_PATH_PARAM_CHARS = 1024;

/** The 414 of a path segment over MAX_PATH_PARAM_CHARS. */
export function pathSegmentTooLong(): JsonableError {
  return new JsonableError(`URL path segment too long (limit: ${MAX_PATH_PARAM_CHARS} characters)`, { status: 414 });
}

export const DB_INT_MIN = -2_147_483_648;
export const DB_INT_MAX = 2_147_483_647;

/** An integer inside a JSON parameter, in the database's integer range. */
export const dbInt = () => z.number().int().min(DB_INT_MIN).max(DB_INT_MAX);

/**
 * An integer parameter ("5" or 5), bounded; without explicit bounds, to the database's integer
 * range (pass wider ones for values stored elsewhere, such as timestamps).
 */
export function int(bounds: { min?: number; max?: number } = {}) {
  return z.preprocess(decodeInt, z.number().int().min(bounds.min ?? DB_INT_MIN).max(bounds.max ?? DB_INT_MAX));
}

/** Zulip's wording for a value outside its list (check_int_in / check_string_in). */
export const NOT_IN_LIST = "Invalid {var_name}: Not in the list of possible values";

/** An integer among `values` (Zulip's check_int_in_validator). */
export const intIn = (...values: number[]) => int().refine((v) => values.includes(v), { message: NOT_IN_LIST });

/** The latest time a timestamp may name (9999-12-31T23:59:59Z). */
const MAX_TIMESTAMP_SECONDS = 253_402_300_799;

/** A UNIX time in seconds, within the years a date can name (whether it may be past is the action's rule). */
export const unixSeconds = () => int({ min: -MAX_TIMESTAMP_SECONDS, max: MAX_TIMESTAMP_SECONDS });

/** An integer path segment. */
export const pathInt = int;

/** A boolean parameter ("true"/"false", or a JSON boolean). */
export const bool = () => z.preprocess(decodeBool, z.boolean());

/** A JSON-encoded parameter (Zulip's `Json[T]`), validated by `schema` once decoded. */
export const json = <T extends z.ZodType>(schema: T) => z.preprocess(decodeJson, schema);

/** A JSON-encoded list of integers (ids), the most common JSON parameter. */
export const intList = () => json(z.array(dbInt()));

/** Parsed parameters, and the names sent that the endpoint does not take. */
export type ParseResult<T> = { params: T; ignored: string[] };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Deeper locations of a refused value are reported by their parameter's name only. */
const MAX_NAMED_DEPTH = 8;

/** A value met while walking parsed parameters, linked to its container to name its location. */
type Visit = { value: unknown; key: PropertyKey; parent: Visit | null };

function locationOf(visit: Visit): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let v: Visit | null = visit; v !== null; v = v.parent) path.unshift(v.key);
  return path;
}

/**
 * Where a string (or object key) holding a NUL character is in parsed values, or null.
 * Iterative and without copying paths, as JSON parameters may nest 100,000 levels deep.
 */
function nulLocation(values: Record<string, unknown>, skip: readonly string[]): PropertyKey[] | null {
  const stack: Visit[] = Object.entries(values).filter(([k]) => !skip.includes(k)).map(([key, value]) => ({ value, key, parent: null }));
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { value } = visit;
    if (typeof value === "string" && value.includes("\0")) return locationOf(visit);
    if (Array.isArray(value)) value.forEach((item, i) => stack.push({ value: item, key: i, parent: visit }));
    else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes("\0")) return locationOf(visit);
        stack.push({ value: item, key, parent: visit });
      }
    }
  }
  return null;
}

/**
 * Parses merged request values with an endpoint's schema. `aliases` maps a deprecated name to
 * its canonical one (`subject` → `topic`); `pathKeys` are never reported as ignored. A NUL
 * character in any string is refused (PostgreSQL text cannot hold one), except in the
 * `nulChecked` parameters, whose action refuses it in Zulip's own words.
 */
export function parseParams<S extends z.ZodObject>(
  schema: S,
  raw: Record<string, unknown>,
  opts: { aliases?: Record<string, string>; pathKeys?: string[]; nulChecked?: readonly string[] } = {},
): ParseResult<z.output<S>> {
  const values: Record<string, unknown> = { ...raw };
  for (const [alias, canonical] of Object.entries(opts.aliases ?? {})) {
    if (!(alias in values)) continue;
    if (canonical in values) throw new ConfusingVarError(canonical, alias);
    values[canonical] = values[alias];
    delete values[alias];
  }
  const known = new Set([...Object.keys(schema.shape), ...(opts.pathKeys ?? [])]);
  const ignored = Object.keys(raw).filter((k) => !known.has(k) && !(k in (opts.aliases ?? {})));
  const result = schema.safeParse(values, { reportInput: true });
  if (!result.success) throw issueToError(result.error.issues[0]);
  const nul = nulLocation(result.data, opts.nulChecked ?? []);
  // A location deep in nested lists would make an unreadable message: name the parameter alone.
  if (nul !== null) throw new JsonableError(`${varName(nul.length > MAX_NAMED_DEPTH ? nul.slice(0, 1) : nul)} contains NULL (0x00) characters.`);
  return { params: result.data, ignored };
}

/** Zulip's name for a nested location: `members[0]`, `profile_data[1]["id"]`. */
function varName(path: PropertyKey[]): string {
  const [head, ...rest] = path;
  return String(head) + rest.map((p) => (typeof p === "number" ? `[${p}]` : `["${String(p)}"]`)).join("");
}

const TYPE_WORDS: Record<string, string> = {
  number: "is not an integer",
  int: "is not an integer",
  boolean: "is not a boolean",
  string: "is not a string",
  array: "is not a list",
  object: "is not a dict",
};

/** Maps one zod issue to Zulip's wording; every issue kind is handled. */
export function issueToError(issue: z.core.$ZodIssue): JsonableError {
  const name = varName(issue.path);
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) {
        return issue.path.length === 1 ? new MissingArgumentError(name) : new JsonableError(`${name} field is missing`);
      }
      if (issue.input === null) return new JsonableError(`${name} is not allowed to be null`);
      return new JsonableError(`${name} ${TYPE_WORDS[issue.expected] ?? "is invalid"}`);
    case "too_big":
      if (issue.origin === "string") return new JsonableError(`${name} is too long (limit: ${String(issue.maximum)} characters)`);
      if (issue.origin === "array" || issue.origin === "set") return new JsonableError(`${name} is too long`);
      return new JsonableError(`${name} is too large`);
    case "too_small":
      if (issue.origin === "string") return new JsonableError(`${name} is too short.`);
      if (issue.origin === "array" || issue.origin === "set") return new JsonableError(`${name} is too short`);
      return new JsonableError(`${name} is too small`);
    case "invalid_format":
      return new JsonableError(`${name} has invalid format`);
    case "invalid_value":
    case "invalid_union":
      if (issue.input === undefined && issue.path.length === 1) return new MissingArgumentError(name);
      return new JsonableError(`Invalid ${name}`);
    case "invalid_key":
    case "invalid_element":
    case "not_multiple_of":
      return new JsonableError(`Invalid ${name}`);
    case "unrecognized_keys":
      return new JsonableError(`Argument "${issue.keys[0]}" at ${name} is unexpected`);
    case "custom":
      if (issue.params?.kind === JSON_INVALID) return new JsonableError(`${name} is not valid JSON`);
      return new JsonableError(issue.message.replaceAll("{var_name}", name));
    default: {
      const unhandled: never = issue;
      throw new Error(`unmapped zod issue ${JSON.stringify(unhandled)}`);
    }
  }
}
