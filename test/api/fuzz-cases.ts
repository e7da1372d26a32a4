/**
 * The fuzz test's requests (fuzz.test.ts): for each route, its parameters sampled with wrong
 * types, huge values, broken encodings, missing and extra ones, in every body encoding; bad
 * credentials; mutated file paths. Fixed lists, no randomness.
 */
import type { z } from "zod";
import type { Endpoint } from "../../src/http/endpoint.ts";
import { basicAuth, type Credentials } from "../helpers/client.ts";

/**
 * The raw routes: outside /api/v1, bytes on success. Those of src/http/routes/files.ts, the
 * organization export download of export-download.ts, the emoji data document of static-emoji.ts,
 * the unknown-user avatar of static-images.ts, and the web app's page, bundle files and page
 * fallback (web-app.ts); a test checks this is every one registered.
 */
export const RAW_ROUTES = [
  "/user_uploads/temporary/:token/:filename", "/user_uploads/:realm_id_str/*", "/user_uploads/thumbnail/*", "/user_avatars/:realm_id/emoji/images/:file_name",
  "/user_avatars/:realm_id/:file_name", "/user_uploads/exports/*",
  "/static/generated/emoji/emoji_api.json", "/static/images/unknown-user-avatar.png", "/", "/static/webapp/:file", "/*",
];

/**
 * Routes only administrators get past the permission check of: fuzzed again as an
 * administrator, so hostile values reach the code behind it. User ids point at the guest.
 */
export const ADMIN_ROUTES = [
  "POST /realm/filters", "PATCH /realm/filters/:filter_id", "DELETE /realm/filters/:filter_id", "PATCH /realm/linkifiers",
  "POST /realm/playgrounds", "DELETE /realm/playgrounds/:playground_id",
  "POST /realm/profile_fields", "PATCH /realm/profile_fields", "PATCH /realm/profile_fields/:field_id", "DELETE /realm/profile_fields/:field_id",
  "DELETE /realm/emoji/:emoji_name", "POST /users", "PATCH /users/:user_id", "DELETE /users/:user_id", "POST /users/:user_id/reactivate",
  "PATCH /streams/:stream_id", "DELETE /streams/:stream_id", "DELETE /messages/:message_id",
];

/** Routes that take the member's own access away: fuzzed last, one request at a time. */
export const SELF_DESTRUCTIVE = new Set(["POST /users/me/api_key/regenerate", "DELETE /users/me"]);

/** Under Node's 16 KiB header limit, so GET values reach the parameter parser. */
const QUERY_STRING_CHARS = 12_000;

/** One request: `target` is the path (with query) under the server's URL. */
export type Case = {
  label: string;
  method: string;
  target: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** A file route: a success may be bytes rather than JSON. */
  raw?: boolean;
  /** Sent on a raw socket (a body shorter than declared, a bad Content-Length). */
  socket?: boolean;
};

export type Ids = {
  member: number; bot: number; stream: number; message: number; group: number; realm: number; attachment: number;
  field: number; filter: number; playground: number; uploadPath: string; token: string;
};

type Wire = Array<[string, string | Buffer]>;

const HUGE = "a".repeat(1 << 20);
const ID_LIST = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => i + 1));
const NAME_LIST = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => `u${i}`));
/** JSON nested deeper than any recursive walk survives (shallower in query strings). */
const DEEP = "[".repeat(100_000) + "]".repeat(100_000);
const DEEP_QUERY = "[".repeat(2000) + "]".repeat(2000);
const INVALID_UTF8 = Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]);

/** What kinds of value a parameter's schema accepts, to pick the huge values worth sending. */
type Takes = { text: boolean; list: boolean; names: boolean };

/**
 * Wrong types, edge numbers, broken JSON, NUL, invalid UTF-8 and huge values, for every
 * parameter. The huge ones fit the type (a 1 MB string where text is taken, 100,000-element
 * lists where lists are), since a parser refuses any other huge value as fast as a short one.
 * Of the values a parameter's schema refuses, one per reason is sent (refusalOf).
 */
function fuzzValues(get: boolean, takes: Takes): Array<string | Buffer> {
  const values: Array<string | Buffer> = [
    "abc", "", "-1", "0", "1.5", "NaN", "1e400", "2147483648", "-2147483649", "99999999999999999999999", "-9223372036854775809",
    "true", "null", "[]", "{}", "[1,", '"x"', '[-1,1.5,"a",null,{},2147483648,99999999999999999999]', get ? DEEP_QUERY : DEEP,
    '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}', "x\u0000y", "\ud83d\ude00\u202e", INVALID_UTF8,
  ];
  if (get) values.push(takes.text ? "a".repeat(QUERY_STRING_CHARS) : "9".repeat(QUERY_STRING_CHARS));
  else values.push(takes.text ? HUGE : "9".repeat(100_000));
  if (takes.list) values.push(get ? JSON.stringify(Array.from({ length: 1500 }, (_, i) => i + 1)) : ID_LIST);
  if (takes.names && !get) values.push(NAME_LIST);
  return values;
}

/** Values for path parameters: not numbers, negative, enormous, broken percent-encoding. */
const PATH_VALUES = ["abc", "-1", "0", "1.5", "NaN", "1e3", "0x10", "%20", "99999999999999999999", "9".repeat(1000), "9".repeat(2000), "%FF", "%00", "%2e%2e", "%E2%80%AE", "%F0%9F%98%80", "a%2Fb"];

/** The id of the fixture object a parameter's name suggests. */
function idFor(name: string, ids: Ids): number {
  if (/stream|channel/.test(name)) return ids.stream;
  if (/message|msg/.test(name)) return ids.message;
  if (/group/.test(name)) return ids.group;
  if (/bot/.test(name)) return ids.bot;
  if (/attachment/.test(name)) return ids.attachment;
  if (/field/.test(name)) return ids.field;
  if (/filter|linkifier/.test(name)) return ids.filter;
  if (/playground/.test(name)) return ids.playground;
  if (/user|owner|principal|member/.test(name)) return ids.member;
  if (/realm/.test(name)) return ids.realm;
  return 1;
}

function stringFor(name: string): string {
  if (/stream/.test(name)) return "fuzz";
  if (/topic/.test(name)) return "fuzz topic";
  if (/content|text|description/.test(name)) return "hello **world**";
  if (/emoji/.test(name)) return "smile";
  if (/email|username/.test(name)) return "member@example.com";
  return "fuzz-name";
}

function accepts(schema: z.ZodType, value: unknown): boolean {
  return schema.safeParse(value).success;
}

/**
 * Why the parameter's schema refuses a wire value (the first issue's kind, type and depth), or
 * null when it accepts it. The server runs the same schema on the same decoded value.
 */
function refusalOf(schema: z.ZodType, value: string | Buffer): string | null {
  const result = schema.safeParse(typeof value === "string" ? value : value.toString("utf8"));
  if (result.success) return null;
  const issue = result.error.issues[0];
  const detail = "expected" in issue ? issue.expected : "origin" in issue ? issue.origin : "";
  return `${issue.code}:${String(detail)}:${issue.path.length}`;
}

/** A wire value the parameter's schema accepts, near the fixture objects, or undefined. */
function sampleValue(name: string, schema: z.ZodType, ids: Ids): string | undefined {
  if (accepts(schema, "not a number at all")) return stringFor(name);
  const id = idFor(name, ids);
  const text = stringFor(name);
  const candidates = [String(id), "true", JSON.stringify(text), `[${id}]`, JSON.stringify([text]), `[{"name":"fuzz"}]`, `{"new":${id}}`, "[]", "{}", "1"];
  return candidates.find((c) => accepts(schema, c));
}

/** The parameters of an endpoint, path parameters apart. */
function describeParams(endpoint: Endpoint, ids: Ids) {
  const pathKeys = [...endpoint.path.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? "*");
  const shape: Record<string, z.ZodType> = endpoint.params.shape;
  const names = Object.keys(shape).filter((k) => !pathKeys.includes(k));
  const samples = new Map(names.map((n) => [n, sampleValue(n, shape[n], ids)]));
  const required = names.filter((n) => !accepts(shape[n], undefined));
  return { pathKeys, shape, names, samples, required };
}

function pathValue(key: string, ids: Ids): string {
  if (key === "*") return ids.uploadPath.split("/").slice(1).join("/");
  if (key === "emoji_name") return "fuzz_emoji";
  if (key === "realm_id_str") return String(ids.realm);
  return String(idFor(key, ids));
}

function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/:(\w+)|\*/g, (m, key: string | undefined) => values[key ?? "*"] ?? m);
}

/** Encoded huge values, made once rather than per request. */
const encoded = new Map<string, Buffer>();

function encodeValue(v: string): Buffer {
  const cached = encoded.get(v);
  if (cached) return cached;
  const out = Buffer.from(encodeURIComponent(v));
  if (v.length > 1000) encoded.set(v, out);
  return out;
}

/** application/x-www-form-urlencoded, with Buffer values sent as raw (invalid) bytes. */
function formBody(pairs: Wire): Buffer {
  const parts = pairs.map(([k, v]) => Buffer.concat([Buffer.from(encodeURIComponent(k) + "="), typeof v === "string" ? encodeValue(v) : v]));
  return Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [Buffer.from("&"), p])));
}

function queryString(pairs: Wire): string {
  const enc = (v: string | Buffer) => (typeof v === "string" ? encodeURIComponent(v) : [...v].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""));
  return pairs.length === 0 ? "" : "?" + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`).join("&");
}

function multipartBody(boundary: string, pairs: Wire, file?: { name: string | Buffer; data: Buffer }): Buffer {
  const chunks: Buffer[] = [];
  for (const [k, v] of pairs) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n`), Buffer.from(v), Buffer.from("\r\n"));
  if (file) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="`), Buffer.from(file.name), Buffer.from(`"\r\nContent-Type: text/plain\r\n\r\n`), file.data, Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** A request with parameters encoded as its method's clients do (query for GET, form otherwise). */
export function withParams(label: string, method: string, path: string, pairs: Wire, headers: Record<string, string>): Case {
  if (method === "GET") return { label, method, target: path + queryString(pairs), headers };
  return { label, method, target: path, headers: { ...headers, "content-type": "application/x-www-form-urlencoded" }, body: formBody(pairs) };
}

/** Bodies no parser can make sense of, and bodies in unusual encodings. */
function encodingCases(method: string, path: string, sampled: Wire, headers: Record<string, string>): Case[] {
  const mk = (label: string, contentType: string, body: string | Buffer): Case => ({ label, method, target: path, headers: { ...headers, "content-type": contentType }, body });
  const text = Object.fromEntries(sampled.map(([k, v]) => [k, String(v)]));
  const utf16 = Buffer.from(formBody(sampled).toString("latin1"), "utf16le");
  return [
    mk("multipart: broken", "multipart/form-data; boundary=xyz", "--xyz\r\nbroken"),
    mk("multipart: no boundary", "multipart/form-data", "abc"),
    mk("multipart: cut inside a part", "multipart/form-data; boundary=xyz", '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nval'),
    mk("multipart: bad part header", "multipart/form-data; boundary=xyz", "--xyz\r\nNonsense\r\n\r\nx\r\n--xyz--\r\n"),
    mk("multipart: fields, invalid UTF-8 and a file", "multipart/form-data; boundary=xyz",
      multipartBody("xyz", [...sampled, ["zz_extra", INVALID_UTF8]], { name: Buffer.concat([Buffer.from("x".repeat(300)), INVALID_UTF8, Buffer.from(".txt")]), data: Buffer.from("hi") })),
    mk("json: broken", "application/json", '{"a":'),
    mk("json: the parameters", "application/json", JSON.stringify(text)),
    mk("json: an array", "application/json", "[1,2,3]"),
    mk("json: a string", "application/json", '"abc"'),
    mk("json: null", "application/json", "null"),
    mk("json: invalid UTF-8", "application/json", Buffer.concat([Buffer.from('{"a":"'), INVALID_UTF8, Buffer.from('"}')])),
    mk("json: nested 100,000 deep", "application/json", "[".repeat(100_000) + "]".repeat(100_000)),
    mk("json: prototype keys", "application/json", '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}'),
    mk("form: invalid UTF-8 and bad escapes", "application/x-www-form-urlencoded", Buffer.concat([formBody(sampled), Buffer.from("&a=%ZZ%F&b="), INVALID_UTF8])),
    mk("form: declared UTF-16", "application/x-www-form-urlencoded; charset=utf-16", utf16),
    mk("form: unknown charset", "application/x-www-form-urlencoded; charset=klingon", formBody(sampled)),
    mk("unsupported content type", "application/xml", "<a/>"),
    mk("text/plain body", "text/plain", "hello"),
    { label: "body shorter than Content-Length", method, target: path, headers: { ...headers, "content-type": "application/x-www-form-urlencoded", "content-length": "1000" }, body: "a=1", socket: true },
    { label: "Content-Length not a number", method, target: path, headers: { ...headers, "content-type": "application/x-www-form-urlencoded", "content-length": "abc" }, body: "a=1", socket: true },
  ];
}

/** Every case for one endpoint, called with `headers` (credentials or none). */
export function endpointCases(endpoint: Endpoint, ids: Ids, headers: Record<string, string>, full: boolean): Case[] {
  const { pathKeys, shape, names, samples, required } = describeParams(endpoint, ids);
  const get = endpoint.method === "GET";
  const basePath = "/api/v1" + fillPath(endpoint.path, Object.fromEntries(pathKeys.map((k) => [k, pathValue(k, ids)])));
  const pairsOf = (keys: string[]): Wire => keys.flatMap((k): Wire => (samples.get(k) === undefined ? [] : [[k, samples.get(k) ?? ""]]));
  const requiredPairs = pairsOf(required);
  const out: Case[] = [withParams("required parameters", endpoint.method, basePath, requiredPairs, headers)];
  if (!full) {
    if (!get) out.push(...encodingCases(endpoint.method, basePath, requiredPairs, headers).slice(0, 2));
    return out;
  }
  const extras: Wire = [["zz_extra", "1"], ["__proto__", "x"], ["constructor", "x"], ["hasOwnProperty", "x"], ["toString", "x"]];
  out.push(withParams("no parameters", endpoint.method, basePath, [], headers));
  out.push(withParams("all parameters and extra ones", endpoint.method, basePath, [...pairsOf(names), ...extras], headers));
  out.push(withParams("every parameter twice", endpoint.method, basePath, [...pairsOf(names), ...pairsOf(names)], headers));
  for (const name of names) {
    const takes = { text: accepts(shape[name], "abc"), list: accepts(shape[name], "[1]"), names: accepts(shape[name], '["a"]') };
    const others = requiredPairs.filter(([k]) => k !== name);
    const refusals = new Set<string>();
    fuzzValues(get, takes).forEach((value, i) => {
      // Values the schema refuses for the same reason all take the same path: send one of each.
      const refusal = refusalOf(shape[name], value);
      if (refusal !== null && refusals.has(refusal)) return;
      if (refusal !== null) refusals.add(refusal);
      const shown = typeof value === "string" ? JSON.stringify(value.length > 40 ? `${value.slice(0, 20)}…(${value.length} chars)` : value) : "invalid UTF-8";
      out.push(withParams(`${name}=${shown} #${i}`, endpoint.method, basePath, [...others, [name, value]], headers));
    });
  }
  for (const key of pathKeys) {
    for (const value of PATH_VALUES) {
      const values = Object.fromEntries(pathKeys.map((k) => [k, k === key ? value : encodeURIComponent(pathValue(k, ids))]));
      out.push(withParams(`path ${key}=${value.length > 40 ? `${value.length} chars` : value}`, endpoint.method, "/api/v1" + fillPath(endpoint.path, values), requiredPairs, headers));
    }
  }
  if (!get) out.push(...encodingCases(endpoint.method, basePath, requiredPairs, headers));
  else out.push(withParams("query string over the header limit", "GET", basePath, [...requiredPairs, ["zz_extra", "a".repeat(20_000)]], headers));
  return out;
}

/** Authorization headers that name nobody, or are not Basic at all. */
export function badAuthHeaders(member: Credentials): string[] {
  const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
  return [
    "Basic !!!",
    `Basic ${b64("no-colon")}`,
    "Bearer abc",
    `Basic ${b64(Buffer.concat([INVALID_UTF8, Buffer.from(":"), INVALID_UTF8]))}`,
    basicAuth({ email: member.email, apiKey: "wrong-key" }),
    basicAuth({ email: `${"x".repeat(5000)}@example.com`, apiKey: "k".repeat(5000) }),
    basicAuth({ email: "member@example.com\u0000", apiKey: `${member.apiKey}\u0000` }),
  ];
}

/** Cases for the file routes: the real upload, then each path segment mutated; bytes only on success. */
export function rawRouteCases(ids: Ids, member: Record<string, string>): Case[] {
  const real: Record<string, Record<string, string>> = {
    "/user_uploads/temporary/:token/:filename": { token: ids.token, filename: "fuzz.txt" },
    "/user_uploads/:realm_id_str/*": { realm_id_str: String(ids.realm), "*": ids.uploadPath.split("/").slice(1).join("/") },
    "/user_uploads/thumbnail/*": { "*": `${ids.realm}/${ids.uploadPath.split("/").slice(1).join("/")}/840x560.webp` },
    "/user_avatars/:realm_id/emoji/images/:file_name": { realm_id: String(ids.realm), file_name: "1.png" },
    "/user_avatars/:realm_id/:file_name": { realm_id: String(ids.realm), file_name: "1.png" },
    "/user_uploads/exports/*": { "*": `${ids.realm}/${"a".repeat(32)}/zulip-export-abcdefgh.tar.gz` },
    "/static/webapp/:file": { file: "main.js" },
    "/*": { "*": "join/some-token/" },
  };
  const out: Case[] = [];
  for (const route of RAW_ROUTES) {
    const values = real[route] ?? {};
    for (const headers of [member, {}]) {
      const who = headers === member ? "member" : "anonymous";
      const target = fillPath(route, values);
      out.push({ label: `${who}: the real path`, method: "GET", target, headers, raw: true });
      out.push({ label: `${who}: odd query`, method: "GET", target: `${target}?x=%FF&y=${"a".repeat(QUERY_STRING_CHARS)}`, headers, raw: true });
      for (const tag of ["*", '"x"', "W/", ",,,", "x".repeat(8000)]) {
        out.push({ label: `${who}: If-None-Match ${tag.slice(0, 10)}`, method: "GET", target, headers: { ...headers, "if-none-match": tag }, raw: true });
      }
      for (const key of Object.keys(values)) {
        for (const value of [...PATH_VALUES, "..", "%2e%2e/%2e%2e/etc/passwd", "a/b/c/d/e/f", "x".repeat(300)]) {
          out.push({ label: `${who}: ${key}=${value.length > 40 ? `${value.length} chars` : value}`, method: "GET", target: fillPath(route, { ...values, [key]: value }), headers, raw: true });
        }
      }
    }
  }
  return out;
}

/** Files with names a file system would choke on, to the two upload routes. */
export function uploadCases(member: Record<string, string>): Case[] {
  const names: Array<string | Buffer> = ["a".repeat(5000) + ".txt", "é".repeat(3000) + ".pdf", "x." + "e".repeat(400), "", ".", "..", "../../etc/passwd", "a\u0000b.txt", INVALID_UTF8, "ﷺ".repeat(200), "CON", " ", "a/b\\c.txt"];
  return ["/api/v1/user_uploads", "/api/v1/realm/emoji/fuzz_emoji"].flatMap((target) =>
    names.map((name, i): Case => ({
      label: `file named ${typeof name === "string" ? JSON.stringify(name.slice(0, 20)) + `(${name.length} chars)` : "invalid UTF-8"} #${i}`,
      method: "POST",
      target,
      headers: { ...member, "content-type": "multipart/form-data; boundary=xyz" },
      body: multipartBody("xyz", [], { name, data: Buffer.from("hello") }),
    })),
  );
}
