/**
 * Parsing of the `narrow` parameter: the modern list of `{operator, operand, negated}` objects and
 * the legacy list of `[operator, operand]` string pairs, with Zulip's validation and wording
 * (zerver/lib/narrow.py NarrowParameter). Operators are checked later, when the narrow is built.
 */
import { JsonableError } from "../errors.ts";

/** An operand: a string, an id, or (for `dm`) a list of user ids. */
export type Operand = string | number | number[];

/** One validated narrow term. */
export type NarrowTerm = { operator: string; operand: Operand; negated: boolean };

/** Operators whose operand may be a string or an integer id (channel, user or message). */
const ID_OPERATORS: ReadonlySet<string> = new Set(["channel", "stream", "id", "sender", "group-pm-with", "dm-including", "with"]);
/** Operators whose operand may be a string (emails) or a list of user ids. */
const IDS_OPERATORS: ReadonlySet<string> = new Set(["pm-with", "dm"]);
/** Operators whose operand may not be blank. */
const NON_EMPTY_OPERATORS: ReadonlySet<string> = new Set(["search"]);

/** Values pydantic's lax mode accepts for a boolean. */
const LAX_TRUE: ReadonlySet<unknown> = new Set([true, 1, "1", "true", "t", "yes", "y", "on"]);
const LAX_FALSE: ReadonlySet<unknown> = new Set([false, 0, "0", "false", "f", "no", "n", "off"]);

function elementError(varName: string, index: number, reason: string): JsonableError {
  return new JsonableError(`Invalid ${varName}[${index}]: Value error, ${reason}`);
}

function isInt(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}

function checkOperand(operator: string, operand: unknown): Operand {
  if (ID_OPERATORS.has(operator)) {
    if (typeof operand === "string" || isInt(operand)) return operand;
    throw new JsonableError("operand is not a string or integer");
  }
  if (IDS_OPERATORS.has(operator)) {
    if (typeof operand === "string") return operand;
    if (!Array.isArray(operand)) throw new JsonableError("operand is not a string or an integer list");
    const bad = operand.findIndex((id) => !isInt(id));
    if (bad >= 0) throw new JsonableError(`operand[${bad}] is not an integer`);
    return operand.filter(isInt);
  }
  if (typeof operand !== "string") throw new JsonableError("operand is not a string");
  if (NON_EMPTY_OPERATORS.has(operator) && operand.trim() === "") throw new JsonableError("operand cannot be blank.");
  return operand;
}

function checkNegated(varName: string, index: number, value: unknown): boolean {
  if (value === undefined) return false;
  const lowered = typeof value === "string" ? value.toLowerCase() : value;
  if (LAX_TRUE.has(lowered)) return true;
  if (LAX_FALSE.has(lowered)) return false;
  throw new JsonableError(`${varName}[${index}]["negated"] is not a boolean`);
}

function parseTerm(varName: string, index: number, elem: unknown): NarrowTerm {
  if (Array.isArray(elem)) {
    const [operator, operand] = elem;
    if (elem.length !== 2 || typeof operator !== "string" || typeof operand !== "string") {
      throw elementError(varName, index, "element is not a string pair");
    }
    return { operator, operand: checkOperand(operator, operand), negated: false };
  }
  if (elem === null || typeof elem !== "object") throw elementError(varName, index, "dict or list required");
  const fields = new Map<string, unknown>(Object.entries(elem));
  const operand = fields.get("operand");
  const operator = fields.get("operator");
  if (operand === undefined || operand === null) throw elementError(varName, index, "operand is missing");
  if (operator === undefined || operator === null) throw elementError(varName, index, "operator is missing");
  if (typeof operator !== "string") throw new JsonableError(`${varName}[${index}]["operator"] is not a string`);
  const negated = checkNegated(varName, index, fields.get("negated"));
  return { operator, operand: checkOperand(operator, operand), negated };
}

/**
 * Validates a decoded narrow (already known to be a list) and returns its terms; `varName` names
 * the parameter in errors (`narrow`).
 */
export function parseNarrow(raw: readonly unknown[], varName = "narrow"): NarrowTerm[] {
  return raw.map((elem, index) => parseTerm(varName, index, elem));
}

/** Python's str() of an operand, as Zulip's error messages print it (`[1, 2]` for a list). */
export function operandText(operand: Operand): string {
  return Array.isArray(operand) ? `[${operand.join(", ")}]` : String(operand);
}
