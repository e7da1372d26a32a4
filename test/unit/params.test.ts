/** src/http/params.ts: every zod issue kind maps to Zulip's wording, and the parser's conventions. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { z } from "zod";
import { JsonableError } from "../../src/errors.ts";
import { bool, DB_INT_MAX, DB_INT_MIN, dbInt, int, intList, issueToError, json, parseParams, str } from "../../src/http/params.ts";

type Case = { title: string; kind: string; schema: z.ZodObject; input: Record<string, unknown>; msg: string; code?: string };

const CASES: Case[] = [
  { title: "missing argument", kind: "invalid_type", schema: z.object({ content: str() }), input: {}, msg: "Missing 'content' argument", code: "REQUEST_VARIABLE_MISSING" },
  { title: "null where not allowed", kind: "invalid_type", schema: z.object({ to: json(z.number()) }), input: { to: "null" }, msg: "to is not allowed to be null" },
  { title: "not an integer", kind: "invalid_type", schema: z.object({ anchor: int() }), input: { anchor: "soon" }, msg: "anchor is not an integer" },
  { title: "not a boolean", kind: "invalid_type", schema: z.object({ apply_markdown: bool() }), input: { apply_markdown: "yes" }, msg: "apply_markdown is not a boolean" },
  { title: "not a string", kind: "invalid_type", schema: z.object({ name: json(z.string()) }), input: { name: "5" }, msg: "name is not a string" },
  { title: "not a list", kind: "invalid_type", schema: z.object({ members: intList() }), input: { members: "5" }, msg: "members is not a list" },
  { title: "not a dict", kind: "invalid_type", schema: z.object({ client_capabilities: json(z.object({})) }), input: { client_capabilities: "[]" }, msg: "client_capabilities is not a dict" },
  { title: "list element", kind: "invalid_type", schema: z.object({ members: intList() }), input: { members: '[1,"a"]' }, msg: "members[1] is not an integer" },
  { title: "missing nested key", kind: "invalid_type", schema: z.object({ profile_data: json(z.array(z.object({ id: z.number() }))) }), input: { profile_data: "[{}]" }, msg: 'profile_data[0]["id"] field is missing' },
  { title: "unnamed type", kind: "invalid_type", schema: z.object({ n: z.bigint() }), input: { n: 1 }, msg: "n is invalid" },
  { title: "string too long", kind: "too_big", schema: z.object({ status_text: str().max(60) }), input: { status_text: "x".repeat(61) }, msg: "status_text is too long (limit: 60 characters)" },
  { title: "list too long", kind: "too_big", schema: z.object({ members: json(z.array(z.number()).max(1)) }), input: { members: "[1,2]" }, msg: "members is too long" },
  { title: "set too long", kind: "too_big", schema: z.object({ s: z.set(z.number()).max(1) }), input: { s: new Set([1, 2]) }, msg: "s is too long" },
  { title: "number too large", kind: "too_big", schema: z.object({ num_after: int({ max: 5000 }) }), input: { num_after: "5001" }, msg: "num_after is too large" },
  { title: "string too short", kind: "too_small", schema: z.object({ name: str().min(1) }), input: { name: "" }, msg: "name is too short." },
  { title: "list too short", kind: "too_small", schema: z.object({ members: json(z.array(z.number()).min(1)) }), input: { members: "[]" }, msg: "members is too short" },
  { title: "number too small", kind: "too_small", schema: z.object({ num_before: int({ min: 0 }) }), input: { num_before: "-1" }, msg: "num_before is too small" },
  { title: "format", kind: "invalid_format", schema: z.object({ color: str().regex(/^#[0-9a-f]{6}$/) }), input: { color: "red" }, msg: "color has invalid format" },
  { title: "enum value", kind: "invalid_value", schema: z.object({ type: z.enum(["direct", "stream"]) }), input: { type: "carrier-pigeon" }, msg: "Invalid type" },
  { title: "missing enum argument", kind: "invalid_value", schema: z.object({ type: z.enum(["direct", "stream"]) }), input: {}, msg: "Missing 'type' argument", code: "REQUEST_VARIABLE_MISSING" },
  { title: "missing union argument", kind: "invalid_union", schema: z.object({ to: z.union([z.number(), z.string()]) }), input: {}, msg: "Missing 'to' argument", code: "REQUEST_VARIABLE_MISSING" },
  { title: "union", kind: "invalid_union", schema: z.object({ to: json(z.union([z.number(), z.string()])) }), input: { to: "true" }, msg: "Invalid to" },
  { title: "record key", kind: "invalid_key", schema: z.object({ m: json(z.record(z.string().min(2), z.number())) }), input: { m: '{"a":1}' }, msg: 'Invalid m["a"]' },
  { title: "map element", kind: "invalid_element", schema: z.object({ m: z.map(z.object({}), z.number()) }), input: { m: new Map([[{}, "x"]]) }, msg: "Invalid m" },
  { title: "multiple of", kind: "not_multiple_of", schema: z.object({ n: int().pipe(z.number().multipleOf(5)) }), input: { n: "3" }, msg: "Invalid n" },
  { title: "unexpected key", kind: "unrecognized_keys", schema: z.object({ data: json(z.strictObject({ a: z.number() })) }), input: { data: '{"a":1,"b":2}' }, msg: 'Argument "b" at data is unexpected' },
  { title: "invalid JSON", kind: "custom", schema: z.object({ narrow: json(z.array(z.string())) }), input: { narrow: "[oops" }, msg: "narrow is not valid JSON" },
  { title: "custom message", kind: "custom", schema: z.object({ emoji: str().refine((s) => s !== "x", "Invalid {var_name} value") }), input: { emoji: "x" }, msg: "Invalid emoji value" },
];

describe("issueToError", () => {
  for (const c of CASES) {
    test(`${c.kind}: ${c.title}`, () => {
      const result = c.schema.safeParse(c.input, { reportInput: true });
      assert.equal(result.success, false);
      const issue = result.error?.issues[0];
      assert.ok(issue);
      assert.equal(issue.code, c.kind, `the case must produce a ${c.kind} issue`);
      const err = issueToError(issue);
      assert.ok(err instanceof JsonableError);
      assert.deepEqual({ msg: err.message, code: err.code, status: err.status }, { msg: c.msg, code: c.code ?? "BAD_REQUEST", status: 400 });
    });
  }

  test("every zod issue kind has a case (a kind zod adds fails here until it is mapped and tested)", () => {
    const covered = new Set(CASES.map((c) => c.kind));
    const missing = Object.keys(z.ZodIssueCode).filter((kind) => !covered.has(kind));
    assert.deepEqual(missing, []);
  });

  test("an issue kind the table does not know throws instead of guessing a message", () => {
    const unknown = { code: "brand_new_kind", path: ["x"], message: "?", input: 1 } as unknown as z.core.$ZodIssue;
    assert.throws(() => issueToError(unknown), /unmapped zod issue/);
  });

  test("a missing argument names it in var_name", () => {
    const result = z.object({ content: str() }).safeParse({});
    const err = issueToError(result.error?.issues[0] as z.core.$ZodIssue);
    assert.deepEqual(err.data, { var_name: "content" });
  });
});

describe("parseParams", () => {
  const schema = z.object({ topic: str().optional(), count: int().optional(), flag: bool().optional(), retention: json(z.number().nullable()).optional() });

  test("decodes strings as Zulip clients send them", () => {
    const { params, ignored } = parseParams(schema, { topic: "null", count: "42", flag: "false", retention: "null" });
    assert.deepEqual(params, { topic: "null", count: 42, flag: false, retention: null });
    assert.deepEqual(ignored, []);
  });

  test("accepts JSON values sent as JSON (application/json bodies)", () => {
    assert.deepEqual(parseParams(schema, { count: 7, flag: true, retention: 30 }).params, { count: 7, flag: true, retention: 30 });
  });

  test("resolves an alias to its canonical name", () => {
    const { params, ignored } = parseParams(schema, { subject: "lunch" }, { aliases: { subject: "topic" } });
    assert.deepEqual(params, { topic: "lunch" });
    assert.deepEqual(ignored, []);
  });

  test("both a parameter and its alias: REQUEST_CONFUSING_VAR", () => {
    assert.throws(
      () => parseParams(schema, { topic: "a", subject: "b" }, { aliases: { subject: "topic" } }),
      (err: unknown) => err instanceof JsonableError && err.code === "REQUEST_CONFUSING_VAR" && err.message === "Can't decide between 'topic' and 'subject' arguments",
    );
  });

  test("unknown keys are reported as ignored, path keys are not", () => {
    const { ignored } = parseParams(schema, { topic: "a", user_id: "5", bogus: "1", other: "2" }, { pathKeys: ["user_id"] });
    assert.deepEqual(ignored, ["bogus", "other"]);
  });

  test("only the first issue is reported", () => {
    assert.throws(() => parseParams(schema, { count: "x", flag: "y" }), (err: unknown) => err instanceof JsonableError && err.message === "count is not an integer");
  });
});

/** Asserts that parsing throws a 400 with this message. */
function refuses(fn: () => unknown, msg: string): void {
  assert.throws(fn, (err: unknown) => err instanceof JsonableError && err.status === 400 && err.message === msg);
}

describe("integers stay in the database's integer range", () => {
  const schema = z.object({ id: int().optional(), ids: intList().optional(), nested: json(z.array(dbInt())).optional(), at: int({ max: 2 ** 40 }).optional() });

  test("int() without bounds takes the 32-bit range, ends included", () => {
    assert.deepEqual(parseParams(schema, { id: String(DB_INT_MAX) }).params, { id: 2147483647 });
    assert.deepEqual(parseParams(schema, { id: String(DB_INT_MIN) }).params, { id: -2147483648 });
    refuses(() => parseParams(schema, { id: "2147483648" }), "id is too large");
    refuses(() => parseParams(schema, { id: "-2147483649" }), "id is too small");
    refuses(() => parseParams(schema, { id: "9".repeat(400) }), "id is not an integer");
  });

  test("explicit bounds replace the default (timestamps)", () => {
    assert.deepEqual(parseParams(schema, { at: String(2 ** 35) }).params, { at: 2 ** 35 });
  });

  test("list elements and integers inside JSON are bounded too", () => {
    refuses(() => parseParams(schema, { ids: "[1,2147483648]" }), "ids[1] is too large");
    refuses(() => parseParams(schema, { nested: "[-2147483649]" }), "nested[0] is too small");
  });
});

describe("NUL characters", () => {
  const schema = z.object({
    name: str().optional(),
    content: str().optional(),
    data: json(z.array(z.object({ id: z.number(), value: z.string() }))).optional(),
    map: json(z.record(z.string(), z.number())).optional(),
    narrow: json(z.array(z.unknown())).optional(),
  });

  test("a NUL in any string is refused, naming where it is", () => {
    refuses(() => parseParams(schema, { name: "a\u0000b" }), "name contains NULL (0x00) characters.");
    refuses(() => parseParams(schema, { data: '[{"id":1,"value":"ok"},{"id":2,"value":"\\u0000"}]' }), 'data[1]["value"] contains NULL (0x00) characters.');
    refuses(() => parseParams(schema, { map: '{"a\\u0000":1}' }), "map contains NULL (0x00) characters.");
  });

  test("parameters the action checks itself are let through", () => {
    assert.deepEqual(parseParams(schema, { content: "a\u0000b" }, { nulChecked: ["content"] }).params, { content: "a\u0000b" });
    refuses(() => parseParams(schema, { content: "x", name: "\u0000" }, { nulChecked: ["content"] }), "name contains NULL (0x00) characters.");
  });

  test("lists nested 100,000 deep are walked without exhausting the stack; the parameter is named alone", () => {
    const deep = `${"[".repeat(100_000)}"\\u0000"${"]".repeat(100_000)}`;
    refuses(() => parseParams(schema, { narrow: deep }), "narrow contains NULL (0x00) characters.");
    const clean = `${"[".repeat(100_000)}"x"${"]".repeat(100_000)}`;
    assert.equal(parseParams(schema, { narrow: clean }).params.narrow?.length, 1);
  });
});
