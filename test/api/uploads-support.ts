/** Shared by the upload, attachment and custom emoji suites: multipart files and raw fetches. */
import { basicAuth, type ApiResponse, type Credentials } from "../helpers/client.ts";
import { assertMatchesOpenApi } from "../helpers/openapi.ts";
import type { TestServer } from "../helpers/server.ts";

/** One file part: field name, file name, bytes and declared type. */
export type FilePart = { field?: string; name: string; data: Buffer | string; type?: string };

/** A 1x1 transparent PNG. */
export const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

/** POSTs files (multipart) to /api/v1 + path; success bodies are checked against the OpenAPI file. */
export async function postFiles(server: TestServer, user: Credentials | null, path: string, files: FilePart[], fields: Record<string, string> = {}): Promise<ApiResponse> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  files.forEach((f, i) => form.append(f.field ?? `file-${i}`, new Blob([typeof f.data === "string" ? f.data : new Uint8Array(f.data)], { type: f.type ?? "application/octet-stream" }), f.name));
  const headers: Record<string, string> = user ? { authorization: basicAuth(user) } : {};
  const res = await fetch(`${server.url}/api/v1${path}`, { method: "POST", headers, body: form });
  const body = JSON.parse(await res.text());
  if (res.status === 200 && body.result === "success") assertMatchesOpenApi("POST", path, body);
  return { status: res.status, body, headers: res.headers };
}

/** Uploads one file as POST /user_uploads. */
export function uploadFile(server: TestServer, user: Credentials | null, name: string, data: Buffer | string, type?: string): Promise<ApiResponse> {
  return postFiles(server, user, "/user_uploads", [{ field: "filename", name, data, type }]);
}

/** A GET of a non-API path (file serving), with Basic auth when a user is given. */
export async function fetchRaw(server: TestServer, user: Credentials | null, path: string): Promise<{ status: number; headers: Headers; data: Buffer; json: unknown }> {
  const headers: Record<string, string> = user ? { authorization: basicAuth(user) } : {};
  const res = await fetch(`${server.url}${path}`, { headers });
  const data = Buffer.from(await res.arrayBuffer());
  let json: unknown = null;
  if ((res.headers.get("content-type") ?? "").startsWith("application/json")) json = JSON.parse(data.toString("utf8"));
  return { status: res.status, headers: res.headers, data, json };
}
