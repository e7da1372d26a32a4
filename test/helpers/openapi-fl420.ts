/**
 * Validators from ../shared/zulip-openapi-fl420-generated.yaml, for what upstream added after the
 * FL 321 copy that test/helpers/openapi.ts checks responses against: the event union, and any
 * named component schema.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import YAML from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));
const FL420_FILE = path.resolve(here, "../../../shared/zulip-openapi-fl420-generated.yaml");

/** OpenAPI 3.0's `nullable: true` as JSON Schema. */
function nullableToJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableToJsonSchema);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (k !== "nullable") out[k] = nullableToJsonSchema(v);
  return (node as { nullable?: unknown }).nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

let validators: { event: ValidateFunction; schema: (name: string) => ValidateFunction } | null = null;
/** Validators from the FL 420 file: the event union, and any named component schema. */
export function fl420Validators(): { event: ValidateFunction; schema: (name: string) => ValidateFunction } {
  if (!validators) {
    const doc = nullableToJsonSchema(YAML.parse(fs.readFileSync(FL420_FILE, "utf8"), { maxAliasCount: -1 })) as { components: unknown };
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ components: doc.components }, "fl420");
    const schema = (name: string) => ajv.compile({ $ref: `fl420#/components/schemas/${name}` });
    validators = { event: schema("get_events_200_response_allOf_events_inner"), schema };
  }
  return validators;
}

