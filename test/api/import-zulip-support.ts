/**
 * The comparison of Parley's answers with the answers upstream Zulip gave for the imported
 * organization (../shared/fixtures/zulip-export-a/zulip-api-snapshot.json). Both answers go
 * through the same normalizations, each one a documented difference (docs/import.md, "What
 * differs from Zulip's answers"), then every field of Zulip's answer must be in Parley's with the
 * same value (callDifferences makes one user's calls and lists what differs, for the import and
 * export tests alike). Fields only Parley sends are not compared: Parley's API level (FL 420) is
 * newer than the snapshot's (FL 321), and newer levels add fields.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiClient, Credentials } from "../helpers/client.ts";

/** The fixture's files, in the shared folder beside the project (../shared/fixtures/). */
export const FIXTURE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/fixtures/zulip-export-a");
export const FIXTURE_TARBALL = `${FIXTURE_DIR}/zulip-export-a.tar.gz`;

/** One recorded call and Zulip's answer. */
export type SnapshotCall = { method: string; path: string; params: Record<string, unknown>; status: number; response: unknown };

/** The snapshot: per login email, per call key, a recorded call; `_meta` names the users. */
export type Snapshot = { _meta: { users: Record<string, { key: string; role: string; user_id: number }> } } & Record<string, Record<string, SnapshotCall>>;

/** Reads the snapshot. */
export function loadSnapshot(): Snapshot {
  return JSON.parse(fs.readFileSync(`${FIXTURE_DIR}/zulip-api-snapshot.json`, "utf8")) as Snapshot;
}

/**
 * Calls not replayed, each because the endpoint or parameter did not exist at the snapshot's
 * feature level (docs/import.md): Zulip answered 405 or 400 where Parley serves the newer API.
 */
export function skippedCall(call: SnapshotCall): string | null {
  if (call.path === "/realm/playgrounds") return "GET /realm/playgrounds did not exist at FL 321 (405); the playgrounds are compared in POST /register";
  if (call.path === "/streams" && "include_all_active" in call.params && call.status === 400) return "include_all_active was administrators-only at FL 321; Parley (FL 420) follows the newer rule";
  return null;
}

type Json = unknown;
type JsonObject = Record<string, Json>;

function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Keys dropped wherever they appear, with the reason (docs/import.md lists the same). */
const DROPPED_KEYS: Readonly<Record<string, string>> = {
  ignored_parameters_unsupported: "Parley knows parameters that FL 321 ignored (include_all)",
  queue_id: "a new event queue",
  last_event_id: "a new event queue",
  zulip_version: "the server's version",
  zulip_feature_level: "the server's API level",
  zulip_merge_base: "the server's version",
  content_html_diff: "Parley computes the highlighted difference of an edit with its own HTML diff",
  submessages: "upstream's exporter leaves widget data (zerver_submessage) out of the export",
  cross_realm_bots: "Parley's system bots belong to the organization (they are in realm_users instead)",
  realm_default_streams: "a list of channel objects before FL 330, of ids since",
  custom_profile_field_types: "the type names are the display strings of Parley's (newer) API level",
};

/** Keys dropped inside some objects only. */
function dropScoped(obj: JsonObject, parentKey: string): void {
  // FL 328 removed the deprecated `user` object of reactions.
  if (parentKey === "reactions") delete obj.user;
  // Zulip counted a muted topic's unread messages here, which its API documentation excludes
  // and Parley does not count; the unread lists themselves are compared.
  if (parentKey === "unread_msgs") delete obj.count;
}

/** Arrays whose order the API does not fix, sorted by this key of their elements. */
const SORT_BY: Readonly<Record<string, string>> = {
  members: "user_id",
  realm_users: "user_id",
  realm_non_active_users: "user_id",
  subscriptions: "stream_id",
  unsubscribed: "stream_id",
  never_subscribed: "stream_id",
  streams: "stream_id",
  display_recipient: "id",
  user_groups: "id",
  realm_user_groups: "id",
};

/**
 * What the normalization needs to know of the organization: the system bots, and whose avatar
 * each uploaded avatar's path is (the export's avatars/records.json: "13/<hash>" -> user id).
 */
export type NormalizeContext = { systemBotIds: ReadonlySet<number>; avatarPaths: ReadonlyMap<string, number> };

/** Reads avatars/records.json of an unpacked export into avatar paths (without extension) by user. */
export function avatarPaths(exportRoot: string): Map<string, number> {
  const records = JSON.parse(fs.readFileSync(`${exportRoot}/avatars/records.json`, "utf8")) as Array<{ path: string; user_profile_id: number }>;
  return new Map(records.map((r) => [r.path.replace(/\.[a-z]+$/, ""), r.user_profile_id]));
}

/**
 * An uploaded avatar's URL as "uploaded avatar of <user id>": Zulip names the image by a hash of
 * the user (/user_avatars/13/<hash>.png), Parley by the user's id (/user_avatars/13/<id>.png?version=N).
 */
function avatarUrl(url: Json, ctx: NormalizeContext): Json {
  if (typeof url !== "string") return url;
  const parley = /^\/user_avatars\/\d+\/(\d+)(-medium)?\.png\?version=\d+$/.exec(url);
  if (parley) return `uploaded avatar of ${parley[1]}${parley[2] ?? ""}`;
  const zulip = /^\/user_avatars\/(.+?)(-medium)?\.png$/.exec(url);
  const owner = zulip ? ctx.avatarPaths.get(zulip[1]) : undefined;
  return owner === undefined ? url : `uploaded avatar of ${owner}${zulip?.[2] ?? ""}`;
}

/** Whether the message's history holds a content edit (FL 365: last_edit_timestamp is then the last one's time). */
function hasContentEdit(message: JsonObject): boolean {
  return Array.isArray(message.edit_history) && message.edit_history.some((e) => isObject(e) && "prev_content" in e);
}

function normalizeMessage(message: JsonObject, ctx: NormalizeContext): void {
  // FL 327: a 1:1 conversation's messages share one recipient id (Zulip 10 used the receiver's).
  if (message.type === "private") delete message.recipient_id;
  // FL 365: last_edit_timestamp counts content edits only (moves have last_moved_timestamp).
  if (!hasContentEdit(message)) delete message.last_edit_timestamp;
  // Zulip's cross-realm bots: another realm's addresses and static avatars; Parley's system bots are the organization's.
  if (ctx.systemBotIds.has(Number(message.sender_id))) {
    delete message.sender_email;
    delete message.sender_realm_str;
    delete message.avatar_url;
  }
  if (Array.isArray(message.display_recipient)) {
    for (const person of message.display_recipient) if (isObject(person) && ctx.systemBotIds.has(Number(person.id))) delete person.email;
  }
}

function normalizeValue(value: Json, key: string, ctx: NormalizeContext): Json {
  if (Array.isArray(value)) {
    let items = value.map((v) => normalizeValue(v, key, ctx));
    if (key === "members" || key === "realm_users" || key === "realm_bots") {
      items = items.filter((v) => !(isObject(v) && ctx.systemBotIds.has(Number(v.user_id ?? v.id))));
    }
    const sortKey = SORT_BY[key];
    if (sortKey) items.sort((a, b) => Number(isObject(a) ? a[sortKey] : a) - Number(isObject(b) ? b[sortKey] : b));
    if (key === "subscribers" || key === "direct_subgroup_ids" || key === "mentions") items.sort((a, b) => Number(a) - Number(b));
    // Topics: by channel, then topic name (Zulip orders them without case, Parley by code point).
    const topicKey = key === "user_topics" ? "topic_name" : key === "streams" ? "topic" : null;
    if (topicKey) items.sort((a, b) => (isObject(a) && isObject(b) ? Number(a.stream_id) - Number(b.stream_id) || String(a[topicKey]).localeCompare(String(b[topicKey]), "en") : 0));
    return items;
  }
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k in DROPPED_KEYS) continue;
    out[k] = k === "avatar_url" || k === "avatar_url_medium" ? avatarUrl(v, ctx) : normalizeValue(v, k, ctx);
  }
  dropScoped(out, key);
  if (key === "messages" && "sender_id" in out) normalizeMessage(out, ctx);
  return out;
}

/** Both answers, normalized the same way. */
export function normalize(body: Json, ctx: NormalizeContext): Json {
  return normalizeValue(body, "", ctx);
}

/** The differences: each field of Zulip's answer missing from Parley's or of another value (at most `limit`). */
export function differences(zulip: Json, parley: Json, limit = 20): string[] {
  const out: string[] = [];
  const walk = (a: Json, b: Json, at: string) => {
    if (out.length >= limit) return;
    if (Array.isArray(a)) {
      if (!Array.isArray(b)) return void out.push(`${at}: Zulip has a list, Parley ${JSON.stringify(b)?.slice(0, 80)}`);
      if (a.length !== b.length) out.push(`${at}: ${a.length} items on Zulip, ${b.length} on Parley`);
      for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], `${at}[${i}]`);
      return;
    }
    if (isObject(a)) {
      if (!isObject(b)) return void out.push(`${at}: Zulip has an object, Parley ${JSON.stringify(b)?.slice(0, 80)}`);
      for (const k of Object.keys(a)) {
        if (!(k in b)) out.push(`${at}.${k}: missing on Parley (Zulip: ${JSON.stringify(a[k])?.slice(0, 80)})`);
        else walk(a[k], b[k], `${at}.${k}`);
      }
      return;
    }
    if (a !== b) out.push(`${at}: Zulip ${JSON.stringify(a)?.slice(0, 120)}, Parley ${JSON.stringify(b)?.slice(0, 120)}`);
  };
  walk(zulip, parley, "");
  return out;
}

/** Makes one user's snapshot calls as `creds`: each call's differences from Zulip's answer (or its other status), prefixed by the call's key; skipped calls are left out. */
export async function callDifferences(api: ApiClient, creds: Credentials, calls: Record<string, SnapshotCall>, ctx: NormalizeContext): Promise<string[]> {
  const found: string[] = [];
  for (const [key, call] of Object.entries(calls)) {
    if (skippedCall(call)) continue;
    const res = await api.request(call.method, call.path, creds, call.params, { validate: false });
    const diffs = res.status !== call.status
      ? [`status ${res.status} (Zulip ${call.status}): ${JSON.stringify(res.body).slice(0, 200)}`]
      : differences(normalize(call.response, ctx), normalize(res.body, ctx));
    for (const d of diffs) found.push(`${key}: ${d}`);
  }
  return found;
}
