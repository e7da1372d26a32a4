/** The Fastify application: body parsing, authentication, parameters, the envelope and errors. */
import http from "node:http";
import type { Socket } from "node:net";
import Fastify, { LogController, type FastifyError, type FastifyReply, type FastifyRequest } from "fastify";
import type { z } from "zod";
import formbody from "@fastify/formbody";
import multipart from "@fastify/multipart";
import { actionCtx, type ActionCtx, type ServerDeps } from "../actions/context.ts";
import type { RateLimits } from "../rate-limit.ts";
import { registerRateLimits } from "./rate-limits.ts";
import { defaultRealm } from "../actions/users/authenticate.ts";
import { authenticate, authenticateWebhook, hasCredentials, type AuthEnv, type CredentialSource } from "./auth.ts";
import { jsonPath, registerCsrf, secureSite } from "./session.ts";
import { registerSessionRoutes } from "./session-routes.ts";
import { BOT_TYPES } from "../actions/users/bots.ts";
import { DeferredAnswer, Redirect, type App, type AppRequest, type Endpoint, type RawRoutes, type RouteServices } from "./endpoint.ts";
import { AdministratorRequiredError, JsonableError } from "../errors.ts";
import type { JsonText } from "../events/pending-events.ts";
import { acceptedEncoding, compressAnswer, compressJsonAnswers } from "./compression.ts";
import { isRealmAdmin } from "../permissions/check.ts";
import { MAX_PATH_PARAM_CHARS, parseParams, pathSegmentTooLong, type ParseResult } from "./params.ts";
import { emailDomain } from "../model/emails.ts";
import { fileFieldNames, readMultipartFile } from "../files/uploaded-file.ts";
import type { ProcessRegistry } from "../events/process-registry.ts";
import { registerEventsForwarding } from "./forward-events.ts";
import { ROUTE_FILES } from "./route-table.ts";

type AppDeps = ServerDeps & {
  /** What the few endpoints that need them are handed besides the action context. */
  services: RouteServices;
  /** The API's rate limits (http/rate-limits.ts). */
  rateLimits: RateLimits;
  endpoints: Endpoint[];
  /** Routes outside the envelope (file bytes), from route files that export `registerRoutes`. */
  rawRoutes: RawRoutes[];
  /** With several processes: where the others are, to pass on events requests for their queues. */
  processes: ProcessRegistry | null;
};

/**
 * The endpoints (under /api/v1, answered with the envelope) and, from route files that export
 * `registerRoutes`, the routes that answer with file bytes: every file of http/routes/.
 */
export function loadRoutes(): { endpoints: Endpoint[]; rawRoutes: RawRoutes[] } {
  const endpoints: Endpoint[] = [];
  const rawRoutes: RawRoutes[] = [];
  for (const [file, mod] of Object.entries(ROUTE_FILES)) {
    if (mod.registerRoutes) rawRoutes.push(mod.registerRoutes);
    else if (mod.endpoints) endpoints.push(...mod.endpoints);
    else throw new Error(`route file ${file} exports neither endpoints nor registerRoutes`);
  }
  return { endpoints, rawRoutes };
}

/** The client name Zulip records: the first product token of the User-Agent. */
function clientName(req: FastifyRequest): string {
  const agent = req.headers["user-agent"] ?? "";
  return /^([^/\s]+)/.exec(agent)?.[1] ?? "Unspecified";
}

function bodyTooLarge(limit: number): JsonableError {
  return new JsonableError(`Request body too large (limit: ${limit} bytes)`, { status: 413 });
}

function envelopeError(reply: FastifyReply, err: JsonableError): FastifyReply {
  return reply.status(err.status).send({ result: "error", msg: err.message, code: err.code, ...err.data });
}

/** Router errors (a path that is not valid percent-encoded UTF-8, an over-long segment), in the envelope. */
function routerError(error: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    envelopeError(reply, pathSegmentTooLong());
    return;
  }
  envelopeError(reply, new JsonableError("Malformed URL: not valid percent-encoded UTF-8"));
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers or request line over
 * the 16 KiB header limit, a bad Content-Length, garbage): answered with the envelope on the
 * raw socket, as Fastify's default handler does with its own body.
 */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [status, msg]: [number, string] =
    err.code === "HPE_HEADER_OVERFLOW" ? [431, "Request headers or URL too large"]
    : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? [408, "Request timed out"]
    : [400, "Malformed HTTP request"];
  const body = JSON.stringify({ result: "error", msg, code: "BAD_REQUEST" });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * A client error met while reading a body: 4xx errors (size limits, prototype keys) keep their
 * status; anything else the parser threw means the body is malformed.
 */
function malformedBody(err: unknown, what: string): unknown {
  if (err instanceof JsonableError) return err;
  const status = err !== null && typeof err === "object" && "statusCode" in err ? err.statusCode : undefined;
  if (typeof status === "number" && status >= 400 && status < 500) return err;
  return new JsonableError(`Malformed ${what} body`);
}

/**
 * Reads a multipart body into field values and UploadedFiles, repeated names becoming lists
 * (as the form parser does). Replaces @fastify/multipart's attachFieldsToBody, whose parser
 * errors would surface as 500s.
 */
async function readMultipartBody(req: FastifyRequest, limit: number): Promise<Record<string, unknown>> {
  const fields = new Map<string, unknown[]>();
  try {
    for await (const part of req.parts()) {
      if (part.type === "field" && part.valueTruncated) throw bodyTooLarge(limit);
      const value = part.type === "file" ? await readMultipartFile(part) : part.value;
      fields.set(part.fieldname, [...(fields.get(part.fieldname) ?? []), value]);
    }
  } catch (err) {
    throw malformedBody(err, "multipart");
  }
  return Object.fromEntries([...fields].map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
}

/**
 * Why a request is refused before its body is read, if it is: a declared body over the limit,
 * or a NUL in the path (it could only reach a query, which PostgreSQL refuses, or a file name).
 */
function refusedRequestLine(req: FastifyRequest, maxBodyBytes: number): JsonableError | undefined {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxBodyBytes) return bodyTooLarge(maxBodyBytes);
  if (/%00/.test(req.url.split("?", 1)[0])) return new JsonableError("Malformed URL: it contains a NULL (0x00) character");
  return undefined;
}

/** The action context of an unauthenticated request: the organization, no caller. */
async function anonymousCtx(deps: ServerDeps, req: AppRequest): Promise<ActionCtx> {
  const realm = await defaultRealm(deps.store.reader);
  if (!realm) throw new JsonableError("No organization exists yet", { status: 503 });
  return actionCtx(deps, { realm, actor: null, client: clientName(req), log: req.log, origin: { ip: req.ip, userAgent: req.headers["user-agent"] ?? "" } });
}

/** The action context of a request to `endpoint`, its caller named by the credentials `source` reads. */
async function contextFor(deps: ServerDeps, authEnv: AuthEnv, req: AppRequest, endpoint: Endpoint, source: CredentialSource): Promise<ActionCtx> {
  if (endpoint.auth === "webhook") {
    const { user, realm } = await authenticateWebhook(req, authEnv);
    return actionCtx(deps, { realm, actor: user, client: endpoint.client ?? clientName(req), log: req.log });
  }
  if (endpoint.auth === "user" || (endpoint.auth === "optional" && hasCredentials(req, source))) {
    const { user, realm, session } = await authenticate(req, authEnv, source);
    if (user.bot_type === BOT_TYPES.incomingWebhook && !endpoint.allowIncomingWebhooks) throw new JsonableError("This API is not available to incoming webhook bots.");
    if (endpoint.adminOnly && !isRealmAdmin(user)) throw new AdministratorRequiredError();
    return actionCtx(deps, { realm, actor: user, client: clientName(req), log: req.log, session });
  }
  return anonymousCtx(deps, req);
}

/** The request's parameters (query, body and path) parsed by the endpoint's schema. */
function readParams<S extends z.ZodObject>(req: FastifyRequest, endpoint: Pick<Endpoint, "auth" | "aliases" | "nulChecked"> & { params: S }): ParseResult<z.output<S>> {
  const pathParams = (req.params ?? {}) as Record<string, unknown>;
  const body = req.body !== null && typeof req.body === "object" && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  // A webhook's body is the integration's payload, whole; its parameters come from the URL.
  const raw = endpoint.auth === "webhook" ? { ...(req.query as Record<string, unknown>), ...pathParams, payload: req.body ?? null } : { ...(req.query as Record<string, unknown>), ...body, ...pathParams };
  return parseParams(endpoint.params, raw, { aliases: endpoint.aliases, pathKeys: [...Object.keys(pathParams), ...fileFieldNames(body)], nulChecked: endpoint.nulChecked });
}

const JSON_TYPE = "application/json; charset=utf-8";

/** What a log line says of the request it is about (requests log through the server's own logger: see buildApp). */
function requestFields(req: FastifyRequest): { reqId: string; method: string; path: string | undefined } {
  return { reqId: req.id, method: req.method, path: req.routeOptions.url };
}

/**
 * Writes a success answer straight to the connection, past Fastify's send: GET /events answers
 * every long poll of a fan-out at once, and Fastify's work per answer (its hook chain, parsing
 * the content type, counting the bytes by flattening the text) was a good part of that loop.
 * Headers already on the raw response (the rate limits') go with it. Only for routes whose
 * answers no onSend hook changes: those under /api/v1 (the /json routes add the CSRF cookie);
 * so it compresses a long answer itself, as the onSend hook would (http/compression.ts).
 * Fastify is not told (no hijack): the handler returned nothing, so it waits for the answer, and
 * `reply.sent` reads true once the raw response has ended.
 */
function writeDirectly(req: AppRequest, reply: FastifyReply, json: JsonText, compressMinBytes: number): void {
  const encoding = json.bytes < compressMinBytes ? null : acceptedEncoding(req.headers["accept-encoding"]);
  if (!encoding) {
    reply.raw.writeHead(200, { "content-type": JSON_TYPE, "content-length": json.bytes, ...(json.bytes < compressMinBytes ? {} : { vary: "accept-encoding" }) });
    reply.raw.end(json.text);
    return;
  }
  compressAnswer(json.text, encoding).then(
    (body) => {
      reply.raw.writeHead(200, { "content-type": JSON_TYPE, "content-length": body.length, "content-encoding": encoding, vary: "accept-encoding" });
      reply.raw.end(body);
    },
    (err: unknown) => sendFailure(req, reply, err),
  );
}

/**
 * What Fastify does with a rejected async handler, for a handler or a long poll's answer that
 * failed: the error's answer, or a log line once an answer has gone.
 */
function sendFailure(req: AppRequest, reply: FastifyReply, err: unknown): void {
  if (reply.sent) req.log.error({ err, ...requestFields(req) }, "failed after its answer was sent");
  else reply.send(err instanceof Error ? err : new Error(String(err)));
}

/**
 * Starts a DeferredAnswer, which sends itself when it comes, written directly (writeDirectly)
 * when `direct`. Its callbacks run inside whatever wakes a long poll (an event's delivery to
 * every queue), so nothing may escape them: an answer that cannot be built answers with the
 * error, as a handler that threw would, and a failure after that is logged.
 */
function startDeferred(req: AppRequest, reply: FastifyReply, data: DeferredAnswer, ignored: readonly string[], direct: { compressMinBytes: number } | null): void {
  const settle = (write: () => void) => {
    try {
      write();
    } catch (err) {
      sendFailure(req, reply, err);
    }
  };
  data.start(
    (members) =>
      settle(() => {
        const json = members().envelope(ignored);
        if (direct) writeDirectly(req, reply, json, direct.compressMinBytes);
        else reply.type(JSON_TYPE).send(json.text);
      }),
    (error) => settle(() => reply.send(error)),
  );
}

/**
 * The route handler of an endpoint, its caller authenticated from `source` (the API key, or the
 * browser's session). It returns nothing and sends the answer itself: Fastify then waits for
 * reply.send, so a waiting long poll holds no promise of its handler, and its answer, written
 * from inside the delivery that wakes it, settles none.
 */
function endpointHandler(deps: AppDeps, authEnv: AuthEnv, endpoint: Endpoint, source: CredentialSource) {
  const handle = async (req: AppRequest, reply: FastifyReply): Promise<void> => {
    const ctx = await contextFor(deps, authEnv, req, endpoint, source);
    const { params, ignored } = readParams(req, endpoint);
    const data = await endpoint.handler(params, ctx, deps.services);
    if (data instanceof Redirect) return void reply.redirect(data.location, 302);
    if (data instanceof DeferredAnswer) return startDeferred(req, reply, data, ignored, source === "basic" ? { compressMinBytes: deps.config.compressMinBytes } : null);
    const extra = ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
    reply.send({ result: "success", msg: "", ...data, ...extra });
  };
  return (req: AppRequest, reply: FastifyReply): void => {
    handle(req, reply).catch((err: unknown) => sendFailure(req, reply, err));
  };
}

/**
 * Builds the app with all endpoints registered under /api/v1 (HTTP Basic) and again under /json
 * (the browser's session cookie and CSRF token; http/session.ts), with the session's own routes.
 */
export async function buildApp(deps: AppDeps) {
  const { store, config } = deps;
  const host = emailDomain(config.externalUrl);
  const app = Fastify({
    loggerInstance: deps.log,
    bodyLimit: config.maxBodyBytes,
    // Behind nginx (TRUSTED_PROXIES), req.ip is the client X-Forwarded-For names: per-address rate limits count clients, not the proxy.
    ...(config.trustedProxies.length > 0 ? { trustProxy: config.trustedProxies } : {}),
    // One line per request would cost throughput and could carry query strings; errors are logged.
    logController: new LogController({ disableRequestLogging: true }),
    // Every request logs through the server's logger rather than a child made for it: a child
    // (pino's object and its bound methods) per request is garbage on every call and, for a
    // long poll, kept alive while it waits. Error lines name the request id themselves.
    childLoggerFactory: (logger) => logger,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_CHARS },
    frameworkErrors: routerError,
    clientErrorHandler,
  });
  // The body limit applies to every content type: refuse by declared length before reading (the
  // multipart plugin, below, caps each part too: a chunked body has no declared length). Hooks
  // here take a callback rather than being async: an async hook costs every request a promise
  // and a microtask.
  app.addHook("onRequest", (req, _reply, done) => done(refusedRequestLine(req, config.maxBodyBytes)));
  app.addHook("onSend", compressJsonAnswers(config.compressMinBytes));
  // The CSRF check comes first: a forged request is refused before it is charged or authenticated.
  registerCsrf(app, config.externalUrl);
  registerRateLimits(app, deps, host);
  await app.register(formbody);
  // Empty JSON bodies (some clients send a content type on DELETE) parse as no parameters.
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new JsonableError("Malformed JSON"), undefined);
    }
  });

  app.setErrorHandler((error, req, reply) => {
    if (error instanceof JsonableError) return envelopeError(reply, error);
    const fe = error as { code?: string; statusCode?: number };
    if (fe.code === "FST_ERR_CTP_BODY_TOO_LARGE" || fe.code === "FST_REQ_FILE_TOO_LARGE" || fe.code === "FST_PARTS_LIMIT") {
      return envelopeError(reply, bodyTooLarge(config.maxBodyBytes));
    }
    if (fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500) {
      // The client's mistake (a body the parser refused, an unsupported type): not worth an error line.
      req.log.debug({ err: error, ...requestFields(req) }, "client error");
      return envelopeError(reply, new JsonableError(error instanceof Error ? error.message : "Bad request", { status: fe.statusCode }));
    }
    req.log.error({ err: error, ...requestFields(req) }, "internal error");
    return envelopeError(reply, new JsonableError("Internal server error", { code: "INTERNAL_SERVER_ERROR", status: 500 }));
  });
  app.setNotFoundHandler((_req, reply) =>
    envelopeError(reply, new JsonableError("Endpoint does not exist", { code: "NOT_FOUND", status: 404 })),
  );

  const authEnv: AuthEnv = { db: store.reader, host, clock: deps.clock };
  if (deps.processes) registerEventsForwarding(app, deps.processes, { processId: deps.services.queues.processId, heartbeatMs: config.heartbeatSeconds * 1000, authEnv });
  const routeEndpoint = (scope: App, endpoint: Endpoint) => {
    scope.route({ method: endpoint.method, url: `/api/v1${endpoint.path}`, handler: endpointHandler(deps, authEnv, endpoint, "basic") });
    // The browser app's copy (Zulip's /json/...): the same endpoint, the session instead of an API key.
    const browserUrl = jsonPath(endpoint);
    if (browserUrl !== null) scope.route({ method: endpoint.method, url: browserUrl, handler: endpointHandler(deps, authEnv, endpoint, "session") });
  };
  // GET routes live in a scope without the multipart plugin: Fastify reads no body for them, and
  // the plugin costs each request of its scope a 'close' listener (held by a long poll for as
  // long as it waits) and an async onResponse hook.
  await app.register(async (bodyless: App) => {
    for (const endpoint of deps.endpoints) if (endpoint.method === "GET") routeEndpoint(bodyless, endpoint);
    for (const register of deps.rawRoutes) register(bodyless, deps, host);
  });
  await app.register(async (withBodies: App) => {
    await withBodies.register(multipart, { limits: { fileSize: config.maxBodyBytes, fieldSize: config.maxBodyBytes } });
    // A file field becomes an UploadedFile (name, type, bytes) under the client's field name.
    withBodies.addHook("preValidation", (req, _reply, done) => {
      if (!req.isMultipart()) return done();
      readMultipartBody(req, config.maxBodyBytes).then((body) => {
        req.body = body;
        done();
      }, done);
    });
    for (const endpoint of deps.endpoints) if (endpoint.method !== "GET") routeEndpoint(withBodies, endpoint);
    registerSessionRoutes(withBodies, { authEnv, secure: secureSite(config.externalUrl), sendsEmail: config.smtp !== null, loginLimiter: deps.services.loginLimiter, anonymousCtx: (req) => anonymousCtx(deps, req), readParams });
  });
  return app;
}
