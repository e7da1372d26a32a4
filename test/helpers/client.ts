/**
 * An HTTP client that encodes parameters the way real Zulip clients do and checks every
 * successful response against zulip-openapi.yaml.
 */
import assert from "node:assert/strict";
import { assertMatchesOpenApi } from "./openapi.ts";

/** Credentials of a fixture user (or any account). */
export type Credentials = { email: string; apiKey: string };

export type Params = Record<string, unknown>;

/** How parameters travel: query string (GET; zulip-js PATCH/DELETE), urlencoded form (Python bindings), multipart (zulip-js POST). */
export type Encoding = "query" | "form" | "multipart";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiResponse = { status: number; body: any; headers: Headers };

export type RequestOptions = { encoding?: Encoding; validate?: boolean; headers?: Record<string, string> };

/** Strings go as they are; everything else JSON-encoded, as the Python bindings do. */
export function encodeValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function entries(params: Params): [string, string][] {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, encodeValue(v)]);
}

/** Basic auth header for credentials. */
export function basicAuth(creds: Credentials): string {
  return "Basic " + Buffer.from(`${creds.email}:${creds.apiKey}`).toString("base64");
}

export class ApiClient {
  constructor(readonly baseUrl: string) {}

  /** Sends a request to /api/v1 + path; validates success bodies unless `validate: false`. */
  async request(method: string, path: string, auth: Credentials | null, params: Params = {}, opts: RequestOptions = {}): Promise<ApiResponse> {
    const encoding = opts.encoding ?? (method === "GET" ? "query" : "form");
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (auth) headers.authorization = basicAuth(auth);
    let url = `${this.baseUrl}/api/v1${path}`;
    let body: string | FormData | undefined;
    const pairs = entries(params);
    if (encoding === "query") {
      if (pairs.length > 0) url += (url.includes("?") ? "&" : "?") + new URLSearchParams(pairs).toString();
    } else if (encoding === "form") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(pairs).toString();
    } else {
      const form = new FormData();
      for (const [k, v] of pairs) form.append(k, v);
      body = form;
    }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path}: non-JSON response (${res.status}): ${text.slice(0, 200)}`);
    }
    const out: ApiResponse = { status: res.status, body: parsed, headers: res.headers };
    if (opts.validate !== false && res.status === 200 && (parsed as { result?: string }).result === "success") {
      assertMatchesOpenApi(method, path, parsed);
    }
    return out;
  }

  get(auth: Credentials | null, path: string, params?: Params, opts?: RequestOptions) {
    return this.request("GET", path, auth, params, opts);
  }
  post(auth: Credentials | null, path: string, params?: Params, opts?: RequestOptions) {
    return this.request("POST", path, auth, params, opts);
  }
  patch(auth: Credentials | null, path: string, params?: Params, opts?: RequestOptions) {
    return this.request("PATCH", path, auth, params, opts);
  }
  delete(auth: Credentials | null, path: string, params?: Params, opts?: RequestOptions) {
    return this.request("DELETE", path, auth, params, opts);
  }
  put(auth: Credentials | null, path: string, params?: Params, opts?: RequestOptions) {
    return this.request("PUT", path, auth, params, opts);
  }
}

/** Asserts a success envelope and returns the body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function expectSuccess(res: ApiResponse): any {
  assert.equal(res.status, 200, `expected success, got ${res.status}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.result, "success");
  assert.equal(res.body.msg, "");
  return res.body;
}

/** Asserts an exact error envelope: code, message and HTTP status (400 unless given). */
export function expectError(res: ApiResponse, code: string, msg: string, status = 400): void {
  assert.deepEqual(
    { status: res.status, result: res.body.result, code: res.body.code, msg: res.body.msg },
    { status, result: "error", code, msg },
    `unexpected response: ${JSON.stringify(res.body)}`,
  );
}
