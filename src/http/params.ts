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

/** An integer parameter ("5" or 5), optionally bounded. */
export function int(bounds: { min?: number; max?: number } = {}) {
  let inner = z.number().int();
  if (bounds.min !== undefined) inner = inner.min(bounds.min);
  if (bounds.max !== undefined) inner = inner.max(bounds.max);
  return z.preprocess(decodeInt, inner);
}

/** An integer path segment. */
export const pathInt = int;

/** A boolean parameter ("true"/"false", or a JSON boolean). */
export const bool = () => z.preprocess(decodeBool, z.boolean());

/** A JSON-encoded parameter (Zulip's `Json[T]`), validated by `schema` once decoded. */
export const json = <T extends z.ZodType>(schema: T) => z.preprocess(decodeJson, schema);

/** A JSON-encoded list of integers, the most common JSON parameter. */
export const intList = () => json(z.array(z.number().int()));

type ParseResult<T> = { params: T; ignored: string[] };

/**
 * Parses merged request values with an endpoint's schema. `aliases` maps a deprecated name to
 * its canonical one (`subject` → `topic`); `pathKeys` are never reported as ignored.
 */
export function parseParams<S extends z.ZodObject>(
  schema: S,
  raw: Record<string, unknown>,
  opts: { aliases?: Record<string, string>; pathKeys?: string[] } = {},
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
