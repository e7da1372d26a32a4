/** How a route declares itself: method, path, parameter schema, who may call it, and a handler. */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, FastifyTypeProviderDefault, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface } from "fastify";
import type { Logger } from "pino";
import type { z } from "zod";
import type { ActionCtx, AuthedCtx } from "../actions/context.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { JsonText } from "../events/pending-events.ts";
import type { QueueManager } from "../events/queue-manager.ts";
import type { RateLimiter, RateLimitRules } from "../rate-limit.ts";
import type { Store } from "../store/db.ts";
import type { PresenceWriteBehind } from "../store/users/presence-write-behind.ts";

/** A response that is not the JSON envelope: an HTTP redirect. */
export class Redirect {
  constructor(readonly location: string) {}
}

/**
 * Success data already written as JSON: the text of its members without braces
 * (`"events":[…],"queue_id":"…"`) with its length in bytes, sent after `"result":"success","msg":""`
 * as it is, where serialising the answer per request would cost too much (GET /events answering
 * every long poll of a fan-out).
 */
export class JsonMembers {
  constructor(readonly members: JsonText) {}

  /** The whole success answer: the text `reply.send({ result, msg, ...data, ...extra })` writes for the same data. */
  envelope(ignored: readonly string[]): JsonText {
    const out = new JsonText().ascii(this.members.bytes === 0 ? '{"result":"success","msg":""' : '{"result":"success","msg":"",').append(this.members);
    if (ignored.length > 0) out.any(`,"ignored_parameters_unsupported":${JSON.stringify(ignored)}`);
    return out.ascii("}");
  }
}

/**
 * An answer that comes later, through a callback: GET /events' long poll, which waits as a
 * callback (events/long-poll.ts) so that a fan-out writes each answer from inside its delivery
 * loop. `start` is called once; the work it starts calls `send` with what builds the success
 * members (built where a failure becomes this request's error, not the delivery's) or `fail`
 * with an error (as a handler would throw), at once or when the poll is woken.
 */
export class DeferredAnswer {
  constructor(readonly start: (send: (build: () => JsonMembers) => void, fail: (error: unknown) => void) => void) {}
}

/**
 * The server's services that only a few endpoints use, handed to every handler as its third
 * argument and passed on by those that need one to their action (never kept in the action context).
 */
export type RouteServices = {
  /** This process's event queues (POST /register, GET and DELETE /events). */
  queues: QueueManager;
  /** Failed password checks per username (POST /fetch_api_key, a password change; Zulip's authenticate_by_username). */
  loginLimiter: RateLimiter;
  /** The limits of requests that mail an account's links (a password reset per address, an email change per user). */
  accountLimits: AccountLimits;
  /** Presence reports that announce nothing, written behind (store/users/presence-write-behind.ts). */
  presenceWrites: PresenceWriteBehind;
};

/** Zulip's password_reset_form_by_email (per address asked for) and email_change_by_user (per user). */
export type AccountLimits = { passwordResetByEmail: RateLimitRules; emailChangeByUser: RateLimitRules };

/** Success data merged into `{result: "success", msg: ""}`. */
type SuccessData = Record<string, unknown> | DeferredAnswer;

type Common<S extends z.ZodObject> = {
  method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
  /** Path under /api/v1, in Fastify syntax (`/users/:user_id`). */
  path: string;
  params: S;
  /** Deprecated parameter names and the name they stand for (`{ subject: "topic" }`). */
  aliases?: Record<string, string>;
  /** Parameters whose action refuses NUL characters itself, in Zulip's words (others get the parser's refusal). */
  nulChecked?: readonly string[];
  /**
   * Zulip's @require_realm_admin: a caller who is not an administrator is refused before the
   * parameters are parsed, so a member learns nothing about them. The action checks again.
   */
  adminOnly?: true;
  /** Zulip's allow_incoming_webhooks: incoming-webhook bots may call it (they may call nothing else). */
  allowIncomingWebhooks?: true;
  /**
   * An unauthenticated call that mails an address it is given: besides api_by_ip, its successes
   * count toward Zulip's sends_email_by_ip (http/rate-limits.ts), an anti-spam limit.
   */
  sendsEmail?: true;
};

/**
 * An integration's URL (Zulip's @webhook_view): the caller's API key in the `api_key` query
 * parameter (or HTTP Basic), the request body handed over whole as the `payload` parameter, and
 * the messages it sends recorded as from `client`.
 */
type WebhookDef<S extends z.ZodObject> = Common<S> & { auth: "webhook"; client: string; handler: (params: z.output<S>, ctx: AuthedCtx, services: RouteServices) => Promise<SuccessData> };

type EndpointDef<S extends z.ZodObject> =
  | (Common<S> & { auth: "user"; handler: (params: z.output<S>, ctx: AuthedCtx, services: RouteServices) => Promise<SuccessData | Redirect> })
  | (Common<S> & { auth: "none" | "optional"; handler: (params: z.output<S>, ctx: ActionCtx, services: RouteServices) => Promise<SuccessData | Redirect> })
  | WebhookDef<S>;

/** A declared endpoint, as the app registers it. */
export type Endpoint = {
  method: Common<z.ZodObject>["method"];
  path: string;
  auth: "user" | "none" | "optional" | "webhook";
  /** Webhooks: the client name their messages carry. */
  client?: string;
  params: z.ZodObject;
  aliases?: Record<string, string>;
  nulChecked?: readonly string[];
  adminOnly?: true;
  allowIncomingWebhooks?: true;
  sendsEmail?: true;
  handler: (params: unknown, ctx: ActionCtx, services: RouteServices) => Promise<SuccessData | Redirect>;
};

/** Declares an endpoint; route files export a list of these as `endpoints`. */
export function defineEndpoint<S extends z.ZodObject>(def: EndpointDef<S>): Endpoint {
  return def as unknown as Endpoint;
}

/** The part of the Fastify app that raw routes use. */
type RouteHost = { get(path: string, handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>): unknown };

/**
 * Routes outside /api/v1 that answer with file bytes rather than the envelope; a route file
 * exports one as `registerRoutes` instead of `endpoints`. `host` is the email domain of the site.
 */
export type RawRoutes = (app: RouteHost, deps: { store: Store; config: Config; clock: Clock }, host: string) => void;

/** A request of the app (its logger is the server's pino logger, as action contexts take it). */
export type AppRequest = FastifyRequest<RouteGenericInterface, RawServerDefault, RawRequestDefaultExpression, FastifySchema, FastifyTypeProviderDefault, unknown, Logger>;

/** The app, or a scope of it, as http/app.ts builds it (with the server's pino logger). */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger>;
