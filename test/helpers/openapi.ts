/**
 * Validates successful responses (and events) against ../shared/zulip-openapi.yaml, the
 * upstream description of the API, so our shapes cannot drift from what clients expect.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import YAML from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));
const SPEC_FILE = process.env.OPENAPI_FILE ?? path.resolve(here, "../../../shared/zulip-openapi.yaml");

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: unknown };

/** OpenAPI 3.0's `nullable: true` as plain JSON Schema: `anyOf: [schema, {type: "null"}]`. */
function convertNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convertNullable);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (k !== "nullable") out[k] = convertNullable(v);
  return (node as { nullable?: unknown }).nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

let doc: Doc | null = null;
let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction | null>();

function load(): { doc: Doc; ajv: Ajv } {
  if (!doc || !ajv) {
    doc = convertNullable(YAML.parse(fs.readFileSync(SPEC_FILE, "utf8"), { maxAliasCount: -1 })) as Doc;
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ components: doc.components }, "openapi");
  }
  return { doc, ajv };
}

/** The OpenAPI path template matching a concrete path, literal segments preferred over `{param}`. */
export function matchTemplate(method: string, concretePath: string): string | null {
  const { doc } = load();
  const candidates = Object.keys(doc.paths).filter((template) => {
    if (!doc.paths[template][method.toLowerCase()]) return false;
    const re = new RegExp("^" + template.replace(/\{[^}]+\}/g, "[^/]+") + "$");
    return re.test(concretePath);
  });
  candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  return candidates[0] ?? null;
}

function validatorFor(template: string, method: string): ValidateFunction | null {
  const key = `${method} ${template}`;
  if (!compiled.has(key)) {
    const { doc, ajv } = load();
    const schema = doc.paths[template][method.toLowerCase()]?.responses?.["200"]?.content?.["application/json"]?.schema;
    if (!schema) {
      compiled.set(key, null);
    } else {
      // Resolve the schema in place, with the document's components reachable through "openapi#".
      const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
      compiled.set(key, ajv.compile(rewritten));
    }
  }
  return compiled.get(key) ?? null;
}

type Check = (value: unknown) => boolean;
const isInt: Check = (v) => Number.isInteger(v);
const isString: Check = (v) => typeof v === "string";
const isIntList: Check = (v) => Array.isArray(v) && v.every(isInt);
const isGroupSetting: Check = (v) =>
  isInt(v) ||
  (v !== null && typeof v === "object" && Object.keys(v).sort().join() === "direct_members,direct_subgroups" &&
    isIntList((v as Record<string, unknown>).direct_members) && isIntList((v as Record<string, unknown>).direct_subgroups));
/** server_supported_permission_settings: realm, stream and group maps of GroupPermissionSetting (FL 326 shape). */
const isPermissionSettings: Check = (v) => {
  const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === "object" && !Array.isArray(x);
  const isSetting = (s: unknown) =>
    isObject(s) &&
    Object.keys(s).sort().join() === "allow_everyone_group,allow_internet_group,allow_nobody_group,allowed_system_groups,default_for_system_groups,default_group_name,require_system_group" &&
    ["allow_everyone_group", "allow_internet_group", "allow_nobody_group", "require_system_group"].every((k) => typeof s[k] === "boolean") &&
    isString(s.default_group_name) && (s.default_for_system_groups === null || isString(s.default_for_system_groups)) &&
    Array.isArray(s.allowed_system_groups) && s.allowed_system_groups.every(isString);
  return isObject(v) && Object.keys(v).sort().join() === "group,realm,stream" && Object.values(v).every((m) => isObject(m) && Object.values(m).every(isSetting));
};

/**
 * Fields newer than the OpenAPI copy (FL 321) that SPEC.md (FL 420) or current clients need.
 * Wherever they appear they are type-checked here and left out of the schema check; every
 * other field is still validated against the file.
 */
const NEWER_FIELDS: Record<string, Check> = {
  // SPEC.md's register response fields.
  service_feature_level: isInt,
  service_version: isString,
  // FL 334: empty topic name support.
  realm_empty_topic_display_name: isString,
  // Realm settings added upstream after FL 321.
  realm_moderation_request_channel_id: isInt,
  realm_topics_policy: isString,
  realm_message_edit_history_visibility_policy: isString,
  realm_can_add_subscribers_group: isGroupSetting,
  realm_can_create_bots_group: isGroupSetting,
  realm_can_create_write_only_bots_group: isGroupSetting,
  realm_can_manage_billing_group: isGroupSetting,
  realm_can_mention_many_users_group: isGroupSetting,
  realm_can_resolve_topics_group: isGroupSetting,
  realm_can_set_delete_message_policy_group: isGroupSetting,
  realm_can_set_topics_policy_group: isGroupSetting,
  realm_can_summarize_topics_group: isGroupSetting,
  // FL 324: user groups' can_remove_members_group.
  can_remove_members_group: isGroupSetting,
  // Channel fields of FL 323-407 (channel and subscription objects, stream events).
  can_administer_channel_group: isGroupSetting,
  can_send_message_group: isGroupSetting,
  can_add_subscribers_group: isGroupSetting,
  can_subscribe_group: isGroupSetting,
  can_delete_any_message_group: isGroupSetting,
  can_delete_own_message_group: isGroupSetting,
  can_move_messages_out_of_channel_group: isGroupSetting,
  can_move_messages_within_channel_group: isGroupSetting,
  can_resolve_topics_group: isGroupSetting,
  subscriber_count: isInt,
  is_recently_active: (v) => typeof v === "boolean",
  topics_policy: isString,
  folder_id: (v) => v === null || isInt(v),
  // FL 330: default channels as ids (register key and default_streams event).
  realm_default_streams: isIntList,
  default_streams: isIntList,
  // FL 365: when a message was last moved.
  last_moved_timestamp: isInt,
  // The sending queue's copy of a message event echoes the client's local_id.
  local_message_id: isString,
  // Register keys of FL 332-369 (in the FL 372 copy).
  password_max_length: isInt,
  server_can_summarize_topics: (v) => typeof v === "boolean",
  realm_enable_guest_user_dm_warning: (v) => typeof v === "boolean",
  server_min_deactivated_realm_deletion_days: (v) => v === null || isInt(v),
  server_max_deactivated_realm_deletion_days: (v) => v === null || isInt(v),
  navigation_tour_video_url: (v) => v === null || isString(v),
  // FL 416: the Welcome Bot's custom text (its event and key are checked against the FL 420 file in test/api/welcome-bot.test.ts).
  realm_welcome_message_custom_text: isString,
  // Register keys of FL 389/390 (navigation views, channel folders); their shapes are checked against the FL 420 file in test/api/fl420.test.ts.
  navigation_views: Array.isArray,
  channel_folders: Array.isArray,
  // FL 399: reminders; their shape is checked against the FL 420 file in test/api/reminders.test.ts.
  reminders: Array.isArray,
  // FL 406: push_devices; its values are checked against the FL 420 file in test/api/push-devices.test.ts.
  push_devices: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  realm_billing: (v) => v !== null && typeof v === "object" && typeof (v as Record<string, unknown>).has_pending_sponsorship_request === "boolean",
  // In the copy, but keyed by setting names that are also newer fields above: checked here whole.
  server_supported_permission_settings: isPermissionSettings,
  // Personal settings of FL 329-411 (user_settings, realm_user_settings_defaults).
  web_suggest_update_timezone: (v) => typeof v === "boolean",
  hide_ai_features: (v) => typeof v === "boolean",
  resolved_topic_notice_auto_read_policy: isString,
  web_left_sidebar_unreads_count_summary: (v) => typeof v === "boolean",
  web_left_sidebar_show_channel_folders: (v) => typeof v === "boolean",
  // Realm permission settings newer than the copy, in realm update_dict events.
  can_create_bots_group: isGroupSetting,
  can_create_write_only_bots_group: isGroupSetting,
  can_manage_billing_group: isGroupSetting,
  can_mention_many_users_group: isGroupSetting,
  can_set_delete_message_policy_group: isGroupSetting,
  can_set_topics_policy_group: isGroupSetting,
  can_summarize_topics_group: isGroupSetting,
};

/** Enum values SPEC.md renames: ours -> the OpenAPI copy's, so the rest of the object still validates. */
const RENAMED_VALUES: Record<string, Record<string, string>> = {
  reaction_type: { service_extra_emoji: "zulip_extra_emoji" },
};

/** A copy of `value` without the newer fields, after checking their values. */
function withoutNewerFields(value: unknown, where: string): unknown {
  if (Array.isArray(value)) return value.map((v, i) => withoutNewerFields(v, `${where}[${i}]`));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const check = NEWER_FIELDS[key];
    if (check) {
      if (!check(v)) throw new Error(`${where}.${key} has an unexpected value: ${JSON.stringify(v)}`);
      continue;
    }
    const renamed = typeof v === "string" ? RENAMED_VALUES[key]?.[v] : undefined;
    out[key] = renamed ?? withoutNewerFields(v, `${where}.${key}`);
  }
  return out;
}

/** Throws with the schema errors if a success body does not match its documented shape. */
export function assertMatchesOpenApi(method: string, apiPath: string, rawBody: unknown): void {
  const template = matchTemplate(method, apiPath.split("?")[0]);
  if (!template) return;
  const validate = validatorFor(template, method);
  const body = withoutNewerFields(rawBody, "response");
  if (!validate || validate(body)) return;
  const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  throw new Error(`response of ${method} ${apiPath} does not match zulip-openapi.yaml (${template}):\n  ${errors.join("\n  ")}`);
}

/** Validates one event against the documented GET /events event schemas; throws on mismatch. */
export function assertEventMatchesOpenApi(event: unknown): void {
  assertMatchesOpenApi("GET", "/events", { result: "success", msg: "", queue_id: "q", events: [event] });
}

/** Whether the OpenAPI file documents this method and path (for tests that must be covered). */
export function isDocumented(method: string, apiPath: string): boolean {
  return matchTemplate(method, apiPath) !== null;
}

