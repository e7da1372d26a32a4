/** Every error code the API can return, and the one error class that carries them. */

/** SPEC.md's error codes, plus the parameter codes of Zulip's request layer. */
export const ERROR_CODES = [
  "BAD_REQUEST",
  "REQUEST_VARIABLE_MISSING",
  "REQUEST_CONFUSING_VAR",
  "STREAM_DOES_NOT_EXIST",
  "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
  "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
  "UNAUTHORIZED",
  "BAD_EVENT_QUEUE_ID",
  "PUSH_SERVICE_NOT_CONFIGURED",
  "NO_ACTIVE_PUSH_DEVICE",
  "ADMIN_ACTION_REQUIRED",
  "FAILED_TO_CONNECT_BOUNCER",
  "INTERNAL_SERVER_ERROR_ON_BOUNCER",
  "RATE_LIMIT_HIT",
  "NOT_FOUND",
  "UNAUTHORIZED_PRINCIPAL",
  "CANNOT_DEACTIVATE_LAST_USER",
  "INTERNAL_SERVER_ERROR",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error shown to the client as Zulip's envelope: `{result: "error", msg, code, ...data}`. */
export class JsonableError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly data: Record<string, unknown>;

  constructor(msg: string, opts: { code?: ErrorCode; status?: number; data?: Record<string, unknown> } = {}) {
    super(msg);
    this.code = opts.code ?? "BAD_REQUEST";
    this.status = opts.status ?? 400;
    this.data = opts.data ?? {};
  }
}

/** A required parameter was not sent. */
export class MissingArgumentError extends JsonableError {
  constructor(name: string) {
    super(`Missing '${name}' argument`, { code: "REQUEST_VARIABLE_MISSING", data: { var_name: name } });
  }
}

/** Both a parameter and its alias were sent. */
export class ConfusingVarError extends JsonableError {
  constructor(a: string, b: string) {
    super(`Can't decide between '${a}' and '${b}' arguments`, { code: "REQUEST_CONFUSING_VAR" });
  }
}

/** No valid credentials (or a deactivated account). */
export class UnauthorizedError extends JsonableError {
  constructor(msg = "Not logged in: API authentication or user session required") {
    super(msg, { code: "UNAUTHORIZED", status: 401 });
  }
}

/** A channel message to a channel that does not exist; names the channel given. */
export class StreamDoesNotExistError extends JsonableError {
  constructor(stream: string) {
    super(`Channel '${stream}' does not exist`, { code: "STREAM_DOES_NOT_EXIST", data: { stream } });
  }
}

/** An event queue that does not exist (never made, deleted or garbage-collected). */
export class BadEventQueueIdError extends JsonableError {
  constructor(queueId: string) {
    super(`Bad event queue ID: ${queueId}`, { code: "BAD_EVENT_QUEUE_ID", data: { queue_id: queueId } });
  }
}

/** Too many attempts; tells the client when to retry. */
export class RateLimitedError extends JsonableError {
  constructor(retryAfterSeconds: number) {
    super("API usage exceeded rate limit", {
      code: "RATE_LIMIT_HIT",
      status: 429,
      data: { "retry-after": retryAfterSeconds },
    });
  }
}

/** The caller's role or group permissions do not allow the action. */
export class PermissionDeniedError extends JsonableError {
  constructor(msg = "Insufficient permission") {
    super(msg, { code: "BAD_REQUEST" });
  }
}
