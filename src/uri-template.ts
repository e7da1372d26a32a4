/**
 * RFC 6570 URI templates (levels 1 to 4): a parser that validates a template and lists the
 * variables its expressions name. Linkifiers and code playgrounds store templates; the message
 * renderer expands them.
 */

/** One `varspec` of an expression: a name with an optional prefix length or explode modifier. */
type VarSpec = { name: string; prefix: number | null; explode: boolean };

/** One `{...}` expression: its operator ("" for simple string expansion) and variables. */
type Expression = { operator: string; vars: VarSpec[] };

/** A parsed template: its literal parts and expressions in order. */
type UriTemplate = { parts: Array<{ literal: string } | Expression>; variableNames: string[] };

/** Level 2-4 operators (RFC 6570 section 2.2). `=,!@|` are reserved for future use: invalid. */
const OPERATORS = new Set(["+", "#", ".", "/", ";", "?", "&"]);

/** Longest prefix length allowed by the `max-length` rule (a positive integer below 10000). */
const MAX_PREFIX = 9999;

// varchar = ALPHA / DIGIT / "_" / pct-encoded; varname = varchar *( ["."] varchar ).
const VARCHAR = "(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})";
const VARSPEC = new RegExp(`^(${VARCHAR}+(?:\\.${VARCHAR}+)*)(?::([1-9][0-9]{0,3})|(\\*))?$`);

function parseVarSpec(text: string): VarSpec | null {
  const m = VARSPEC.exec(text);
  if (m === null) return null;
  const prefix = m[2] === undefined ? null : Number(m[2]);
  if (prefix !== null && prefix > MAX_PREFIX) return null;
  return { name: m[1], prefix, explode: m[3] !== undefined };
}

function parseExpression(body: string): Expression | null {
  const operator = OPERATORS.has(body[0] ?? "") ? body[0] : "";
  const list = body.slice(operator.length);
  if (list === "") return null;
  const vars: VarSpec[] = [];
  for (const text of list.split(",")) {
    const spec = parseVarSpec(text);
    if (spec === null) return null;
    vars.push(spec);
  }
  return { operator, vars };
}

/** Parses a template; null when it is not a valid RFC 6570 template (unbalanced braces, bad expression). */
export function parseUriTemplate(template: string): UriTemplate | null {
  const parts: UriTemplate["parts"] = [];
  const names: string[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf("{", i);
    const literal = template.slice(i, open === -1 ? template.length : open);
    // Literals are taken leniently (as upstream's validator does), except that braces must pair.
    if (literal.includes("}")) return null;
    if (literal !== "") parts.push({ literal });
    if (open === -1) break;
    const close = template.indexOf("}", open + 1);
    if (close === -1) return null;
    const expression = parseExpression(template.slice(open + 1, close));
    if (expression === null) return null;
    parts.push(expression);
    for (const v of expression.vars) if (!names.includes(v.name)) names.push(v.name);
    i = close + 1;
  }
  return { parts, variableNames: names };
}
