/**
 * The typed API client: every call goes to `/json/...` with the session cookie, sends the
 * `X-CSRFToken` header (the `csrftoken` cookie's value) on writes, and turns Zulip's error
 * envelope into an ApiError. The API key is never seen by script: the session cookie is HttpOnly.
 */
import type {
  EmojiDataResponse,
  EventsResponse,
  MessagesResponse,
  PresenceResponse,
  RealmEmojiResponse,
  RegisterResponse,
  SessionResponse,
  SingleMessageResponse,
  TopicsResponse,
  UploadResponse,
  UserGroupsResponse,
} from "./types.ts";

/** A failed call: Zulip's error envelope (code, msg), or a network failure (code "NETWORK_ERROR", status 0). */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Parameter values as the API takes them: objects and arrays travel as JSON text. */
export type Params = Record<string, string | number | boolean | object | null | undefined>;

/** The value of a cookie of this page ("" when unset). */
function cookie(name: string): string {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

function encode(params: Params): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    out.set(key, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A success envelope. Its fields are taken as the call's declared type: the server's shapes are
 * checked against the client's at compile time (web/server-types.check.ts), not at run time.
 */
function isSuccess<T>(value: unknown): value is T {
  return isRecord(value) && value.result === "success";
}

/** One call; resolves to the success body, rejects with ApiError. `signal` aborts it. */
export async function call<T>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
  const body = encode(params);
  const url = method === "GET" && body.size > 0 ? `/json${path}?${body}` : `/json${path}`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") {
    headers["x-csrftoken"] = cookie("csrftoken");
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  return send<T>(url, { method, headers, body: method === "GET" ? undefined : body, credentials: "same-origin", signal });
}

/** A multipart POST (a file and its fields, as a custom emoji's upload); resolves to the success body, rejects with ApiError. */
export function callForm<T>(path: string, form: FormData): Promise<T> {
  return send<T>(`/json${path}`, { method: "POST", headers: { accept: "application/json", "x-csrftoken": cookie("csrftoken") }, body: form, credentials: "same-origin" });
}

/** Sends a request and reads Zulip's envelope. */
async function send<T>(url: string, init: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    if (init.signal?.aborted) throw err;
    throw new ApiError("NETWORK_ERROR", "Cannot reach the server.", 0);
  }
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    throw new ApiError(res.status >= 500 ? "NETWORK_ERROR" : "BAD_RESPONSE", `Unexpected answer from the server (HTTP ${res.status}).`, res.status);
  }
  if (isSuccess<T>(json)) return json;
  const msg = isRecord(json) && typeof json.msg === "string" ? json.msg : `HTTP ${res.status}`;
  const code = isRecord(json) && typeof json.code === "string" ? json.code : "BAD_REQUEST";
  throw new ApiError(code, msg, res.status, isRecord(json) ? json : {});
}

/**
 * POST /json/user_uploads with one file (multipart, as Zulip's web app sends it), reporting the
 * fraction sent; XMLHttpRequest because fetch reports no upload progress.
 */
export function upload(file: File, onProgress: (fraction: number) => void): Promise<UploadResponse> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/json/user_uploads");
    xhr.setRequestHeader("x-csrftoken", cookie("csrftoken"));
    xhr.setRequestHeader("accept", "application/json");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError("NETWORK_ERROR", "Cannot reach the server.", 0));
    xhr.onload = () => {
      let json: unknown = null;
      try {
        json = JSON.parse(xhr.responseText);
      } catch {
        return reject(new ApiError("BAD_RESPONSE", `Unexpected answer from the server (HTTP ${xhr.status}).`, xhr.status));
      }
      if (isSuccess<UploadResponse>(json)) return resolve(json);
      const msg = isRecord(json) && typeof json.msg === "string" ? json.msg : `HTTP ${xhr.status}`;
      reject(new ApiError(isRecord(json) && typeof json.code === "string" ? json.code : "BAD_REQUEST", msg, xhr.status));
    };
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}

/** The server's emoji names document (a static file outside /json, as Zulip serves it). */
async function emojiData(): Promise<EmojiDataResponse> {
  const res = await fetch("/static/generated/emoji/emoji_api.json", { credentials: "same-origin" });
  if (!res.ok) throw new ApiError("BAD_RESPONSE", `Could not load the emoji (HTTP ${res.status}).`, res.status);
  const json: unknown = await res.json();
  if (!isRecord(json) || !isRecord(json.code_to_names)) throw new ApiError("BAD_RESPONSE", "Unexpected emoji data.", res.status);
  return { code_to_names: Object.fromEntries(Object.entries(json.code_to_names).filter((e): e is [string, string[]] => Array.isArray(e[1]))) };
}

/** The calls the app makes, typed. */
export const api = {
  session: () => call<SessionResponse>("GET", "/session"),
  login: (username: string, password: string) => call<SessionResponse>("POST", "/login", { username, password }),
  logout: () => call<object>("POST", "/logout"),
  register: (params: Params) => call<RegisterResponse>("POST", "/register", params),
  events: (queueId: string, lastEventId: number, signal: AbortSignal, dontBlock = false) =>
    call<EventsResponse>("GET", "/events", { queue_id: queueId, last_event_id: lastEventId, dont_block: dontBlock || undefined }, signal),
  deleteQueue: (queueId: string) => call<object>("DELETE", "/events", { queue_id: queueId }),
  messages: (params: Params) => call<MessagesResponse>("GET", "/messages", params),
  send: (params: Params) => call<{ id: number }>("POST", "/messages", params),
  flags: (messages: number[], op: "add" | "remove", flag: string) => call<object>("POST", "/messages/flags", { messages, op, flag }),
  topics: (streamId: number) => call<TopicsResponse>("GET", `/users/me/${streamId}/topics`),
  reaction: (messageId: number, op: "add" | "remove", emoji: { emoji_name: string; emoji_code: string; reaction_type: string }) =>
    call<object>(op === "add" ? "POST" : "DELETE", `/messages/${messageId}/reactions`, emoji),
  updateSettings: (params: Params) => call<object>("PATCH", "/settings", params),
  message: (messageId: number) => call<SingleMessageResponse>("GET", `/messages/${messageId}`, { apply_markdown: false }),
  editMessage: (messageId: number, params: Params) => call<object>("PATCH", `/messages/${messageId}`, params),
  deleteMessage: (messageId: number) => call<object>("DELETE", `/messages/${messageId}`),
  userGroups: () => call<UserGroupsResponse>("GET", "/user_groups"),
  realmEmoji: () => call<RealmEmojiResponse>("GET", "/realm/emoji"),
  presence: (status: "active" | "idle", newUserInput: boolean) =>
    call<PresenceResponse>("POST", "/users/me/presence", { status, new_user_input: newUserInput, slim_presence: true }),
  typing: (params: Params) => call<object>("POST", "/typing", params),
  emojiData,
};
