/**
 * The delivery of outgoing-webhook jobs (Zulip's OutgoingWebhookWorker and
 * zerver/lib/outgoing_webhook.py), in-process, off every request's path. A job
 * (actions/messages/outgoing-webhook-trigger.ts) is taken by moving its due time past the
 * request's timeout, so processes sharing the database never both take one, and a job whose
 * process died comes due again. Its message is POSTed as JSON to the bot's service: Zulip's
 * generic payload (`bot_email`, `bot_full_name`, `data`, `trigger`, `token`, `message`). A 2xx
 * answer's `content` (or the legacy `response_string`) is posted back as the bot where the message
 * was; `response_not_required` or an empty body posts nothing. A timeout, an unreachable server
 * or a non-2xx answer is tried again, MAX_REQUEST_RETRIES times with a doubling wait; then, as
 * Zulip does, the bot says "Failure! ..." in the conversation and tells its owner in a direct
 * message, with Zulip's wording. The request goes through src/outgoing-http.ts: a URL (or a
 * redirect) to a private or internal address is refused, at once and with nothing of its answer
 * quoted, as upstream's Smokescreen proxy refuses it.
 *
 * It runs on real time, not on the server's clock: a request's timeout is real time whatever a
 * test does to the clock. A `message` event on the bus (a job may have come with it) wakes it
 * within WAKE_DELAY_MS, once for a whole burst of messages: a busy channel costs the worker a
 * pass (two indexed reads) per WAKE_DELAY_MS, not one per message.
 */
import { systemClock } from "../../clock.ts";
import { DisallowedAddressError, JsonableError } from "../../errors.ts";
import { messageLinkUrl } from "../../markdown/link-syntax.ts";
import { outgoingRequest, PROXY_REFUSED_STATUS } from "../../outgoing-http.ts";
import { messageLookups, presentMessage } from "../../present/messages.ts";
import { apiEmail, emailDomain } from "../../model/emails.ts";
import { messageLookupRows } from "../../store/lookups/message-lookups.ts";
import { directRecipientMembers, getMessage } from "../../store/messages/messages.ts";
import { outgoingWebhookJobs } from "../../store/messages/outgoing-webhooks.ts";
import { getRealm } from "../../store/realm/realms.ts";
import type { OutgoingWebhookJobRow } from "../../store/schema/webhooks.ts";
import type { MessageRow, RealmRow, ServiceRow, UserRow } from "../../store/schema/database.ts";
import { getStreamById } from "../../store/channels/streams.ts";
import type { Db } from "../../store/schema/types.ts";
import { getUser, servicesByBot, usersByIds } from "../../store/users/users.ts";
import { ZULIP_VERSION } from "../../version.ts";
import { actionCtx, doEnv, withTransaction, type ActionCtx, type DoEnv, type ServerDeps } from "../context.ts";
import { JobLoop } from "../job-loop.ts";
import type { Addressee } from "../messages/send.ts";
import { checkMessage, doSendMessage } from "../messages/send.ts";
import { outgoingWebhookJobsQueued } from "../messages/outgoing-webhook-trigger.ts";
import { hiddenSenders } from "../messages/read.ts";

/** Zulip's MAX_REQUEST_RETRIES: retries after the first attempt, before giving up. */
export const MAX_REQUEST_RETRIES = 3;
/** The client the bot's answers are posted with (Zulip's). */
const RESPONSE_CLIENT = "OutgoingWebhookResponse";
/** Requests in flight at once; a slow bot holds one slot, not the worker. */
const MAX_IN_FLIGHT = 16;
/** The longest sleep: another process's job, or a job whose process died, is seen within it. */
const MAX_SLEEP_MS = 30_000;
/** After a pass the database refused, or that found due jobs it could not take, wait this long. */
const RETRY_MS = 1_000;
/** A taken job comes due again this long after its request's timeout (its process died). */
const LEASE_MARGIN_MS = 60_000;
/** The most of a bot's answer that is read; the rest is dropped unread (an answer is a message, at most 10,000 characters). */
const MAX_RESPONSE_BYTES = 1 << 20;
/** Characters of a bot's answer quoted to its owner. */
const MAX_QUOTED_RESPONSE = 2_000;

/** What the worker runs on: the server's parts. */
export type OutgoingWebhookWorkerDeps = ServerDeps;

/** A running worker; stop() it before closing the store. */
export type OutgoingWebhookWorker = { stop(): Promise<void> };

/** Everything one delivery reads before its request. */
type Loaded = { ctx: ActionCtx; bot: UserRow; service: ServiceRow; message: MessageRow };

/** How a request ended. */
type Outcome =
  /** A 2xx answer: what to post back (null: nothing), or why the answer is unusable. */
  | { kind: "answered"; content: string | null; error: string | null; body: string }
  /** A failure: whether it is worth retrying, and what the conversation and the owner are told if it is the last. */
  | { kind: "failed"; retry: boolean; conversation: string; owner: string; body: string }
  /** The worker stopped mid-request. */
  | { kind: "stopped" };

/** The generic interface's request body (Zulip's GenericOutgoingWebhookService.make_request). */
async function payload(loaded: Loaded, trigger: string): Promise<string> {
  const { ctx, bot, service, message } = loaded;
  const host = emailDomain(ctx.config.externalUrl);
  const rows = await messageLookupRows(ctx.db, ctx.realm.id, [message]);
  const lookups = messageLookups(ctx.realm, host, rows);
  // Raw Markdown with the HTML beside it, as Zulip's finalize_payload(apply_markdown=False, keep_rendered_content=True).
  const presented = presentMessage(message, bot, { applyMarkdown: false, clientGravatar: false, emptyTopicName: false }, lookups, await hiddenSenders(ctx, bot, rows.users));
  return JSON.stringify({
    bot_email: apiEmail(bot, host),
    bot_full_name: bot.full_name,
    data: message.content,
    trigger,
    token: service.token,
    message: { rendered_content: message.rendered_content, ...presented },
  });
}

/** Zulip's process_success_response and GenericOutgoingWebhookService.process_success. */
function parseAnswer(body: string): { content: string | null; error: string | null } {
  if (body.trim() === "") return { content: null, error: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { content: null, error: "Invalid JSON in response" };
  }
  // zulip_botserver before 2021-05 answered json.dumps("") for "no response required".
  if (parsed === "") return { content: null, error: null };
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return { content: null, error: "Invalid response format" };
  const answer = parsed as Record<string, unknown>;
  if (answer.response_not_required) return { content: null, error: null };
  const raw = "response_string" in answer ? answer.response_string : "content" in answer ? answer.content : null;
  if (raw === null || raw === undefined) return { content: null, error: null };
  const content = typeof raw === "string" ? raw : JSON.stringify(raw);
  return { content: content.trim() === "" ? null : content, error: null };
}

/** A bot's answer as quoted to its owner. */
function quoted(body: string): string {
  return body.length > MAX_QUOTED_RESPONSE ? `${body.slice(0, MAX_QUOTED_RESPONSE)}...` : body;
}

/** Where the bot answers: the message's topic, or its direct-message conversation. */
async function replyAddressee(db: Db, realm: RealmRow, bot: UserRow, message: MessageRow): Promise<Addressee | null> {
  if (message.stream_id !== null) {
    const stream = await getStreamById(db, realm.id, message.stream_id);
    return stream ? { type: "stream", to: stream, topic: message.topic } : null;
  }
  const memberIds = (await directRecipientMembers(db, [message.recipient_id])).get(message.recipient_id) ?? [];
  const others = memberIds.filter((id) => id !== bot.id);
  return { type: "private", to: others.length === 0 ? [bot] : await usersByIds(db, realm.id, others) };
}

/** Posts `content` as the bot where the message was (Zulip's send_response_message); throws a JsonableError the checks raise. */
async function doPostAsBot(tx: Db, env: DoEnv, bot: UserRow, message: MessageRow, content: string): Promise<void> {
  const addressee = await replyAddressee(tx, env.realm, bot, message);
  if (!addressee) return; // the channel is gone: nowhere to answer, as Zulip suppresses it
  const botEnv = doEnv(env, env.emit, bot, RESPONSE_CLIENT);
  await doSendMessage(tx, env, await checkMessage(botEnv, tx, { addressee, content }));
}

/** Zulip's fail_with_message: "Failure! ..." as the bot in the conversation; a refusal is logged and skipped. */
async function doFailInConversation(tx: Db, env: DoEnv, loaded: Loaded, reason: string): Promise<void> {
  try {
    await doPostAsBot(tx, env, loaded.bot, loaded.message, `Failure! ${reason}`);
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
    env.log.warn({ bot_id: loaded.bot.id, message_id: loaded.message.id, reason: err.message }, "outgoing webhook failure message skipped");
  }
}

/** Zulip's notify_bot_owner: the bot itself tells its owner, in a direct message (as its send_response_message). */
async function doNotifyOwner(tx: Db, env: DoEnv, loaded: Loaded, detail: string, body: string): Promise<void> {
  const { bot, message } = loaded;
  if (bot.bot_owner_id === null) return;
  const owner = await getUser(tx, env.realm.id, bot.bot_owner_id);
  if (!owner || owner.is_active !== 1) return;
  const url =
    message.stream_id === null
      ? messageLinkUrl(env.config.externalUrl, { id: message.id, topic: message.topic, stream: null, memberIds: (await directRecipientMembers(tx, [message.recipient_id])).get(message.recipient_id) ?? [] })
      : messageLinkUrl(env.config.externalUrl, { id: message.id, topic: message.topic, stream: { id: message.stream_id, name: (await getStreamById(tx, env.realm.id, message.stream_id))?.name ?? "" } });
  let content = `[A message](${url}) to your bot @_**${bot.full_name}** triggered an outgoing webhook.`;
  content += `\n${detail}`;
  if (body !== "") content += `\nThe response contains the following payload:\n\`\`\`\n${quoted(body)}\n\`\`\``;
  const asBot = doEnv(env, env.emit, bot, RESPONSE_CLIENT);
  try {
    await doSendMessage(tx, env, await checkMessage(asBot, tx, { addressee: { type: "private", to: [owner] }, content }));
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
    env.log.warn({ bot_id: bot.id, reason: err.message }, "outgoing webhook owner notice skipped");
  }
}

/** Reads what a job needs; null when it can no longer be delivered (bot, service or message gone). */
async function load(deps: OutgoingWebhookWorkerDeps, job: OutgoingWebhookJobRow): Promise<Loaded | null> {
  const db = deps.store.reader;
  const realm = await getRealm(db, job.realm_id);
  if (!realm || realm.deactivated === 1) return null;
  const [bot, message, services] = await Promise.all([
    getUser(db, realm.id, job.bot_user_id),
    getMessage(db, realm.id, job.message_id),
    servicesByBot(db, realm.id, [job.bot_user_id]),
  ]);
  const service = services.get(job.bot_user_id)?.[0];
  if (!bot || bot.is_active !== 1 || !message || !service) return null;
  return { ctx: actionCtx(deps, { realm, actor: null, client: "Internal" }), bot, service, message };
}

/**
 * What the conversation and the owner are told of a refused destination: upstream's words for its
 * proxy's 407 (the same whether Parley refused it or OUTGOING_HTTP_PROXY did). The destination's
 * answer, if it gave one, is never quoted, and the request is not tried again: the rule that
 * refused it will refuse it again.
 */
const REFUSED: Outcome = {
  kind: "failed",
  retry: false,
  conversation: `Third party responded with ${PROXY_REFUSED_STATUS}`,
  owner: "The URL configured for the webhook is for a private or disallowed network.",
  body: "",
};

/** POSTs the job's payload and reads the answer (Zulip's do_rest_call), within the timeout, through src/outgoing-http.ts's checks. */
async function request(deps: OutgoingWebhookWorkerDeps, loaded: Loaded, trigger: string, stop: AbortSignal): Promise<Outcome> {
  const timeoutSeconds = deps.config.outgoingWebhookTimeoutSeconds;
  const body = await payload(loaded, trigger);
  const timeout = AbortSignal.timeout(timeoutSeconds * 1000);
  const job = { bot_id: loaded.bot.id, message_id: loaded.message.id };
  try {
    const res = await outgoingRequest(deps.config, loaded.service.base_url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": `ZulipOutgoingWebhook/${ZULIP_VERSION}` },
      body,
      signal: AbortSignal.any([stop, timeout]),
      maxBytes: MAX_RESPONSE_BYTES,
    });
    if (res.status >= 200 && res.status < 300) return { kind: "answered", body: res.text, ...parseAnswer(res.text) };
    if (res.status === PROXY_REFUSED_STATUS) {
      deps.log.warn(job, "outgoing webhook answered 407: reported as a disallowed network");
      return REFUSED;
    }
    deps.log.warn({ ...job, status: res.status }, "outgoing webhook answered with an error status");
    return { kind: "failed", retry: true, conversation: `Third party responded with ${res.status}`, owner: `The webhook got a response with status code *${res.status}*.`, body: res.text };
  } catch (err) {
    if (stop.aborted) return { kind: "stopped" };
    if (timeout.aborted) {
      deps.log.info(job, "outgoing webhook timed out");
      return { kind: "failed", retry: true, conversation: "Bot is unavailable", owner: `Request timed out after ${timeoutSeconds} seconds.`, body: "" };
    }
    if (err instanceof DisallowedAddressError) {
      deps.log.warn({ ...job, reason: err.message }, "outgoing webhook refused");
      return REFUSED;
    }
    deps.log.info({ ...job, reason: String(err) }, "outgoing webhook connection error");
    return { kind: "failed", retry: true, conversation: "Bot is unavailable", owner: "A connection error occurred. Is my bot server down?", body: "" };
  }
}

/** Acts on a request's outcome: answers, retries later, or gives up and tells the owner. */
async function settle(deps: OutgoingWebhookWorkerDeps, job: OutgoingWebhookJobRow, loaded: Loaded, outcome: Outcome): Promise<void> {
  const { ctx } = loaded;
  if (outcome.kind === "stopped") {
    // Leave it due now for the next process rather than after the lease.
    await withTransaction(ctx, (tx) => outgoingWebhookJobs.reschedule(tx, job.id, job.failed_tries, systemClock.nowMs()));
    return;
  }
  if (outcome.kind === "failed") {
    const tries = job.failed_tries + 1;
    if (outcome.retry && tries <= MAX_REQUEST_RETRIES) {
      const waitMs = deps.config.outgoingWebhookRetryBaseMs * 2 ** (tries - 1);
      await withTransaction(ctx, (tx) => outgoingWebhookJobs.reschedule(tx, job.id, tries, systemClock.nowMs() + waitMs));
      return;
    }
    deps.log.warn({ bot_id: loaded.bot.id, message_id: loaded.message.id }, "outgoing webhook: maximum retries exceeded");
    await withTransaction(ctx, async (tx, emit) => {
      const env = doEnv(ctx, emit);
      await outgoingWebhookJobs.remove(tx, job.id);
      await doFailInConversation(tx, env, loaded, outcome.conversation);
      await doNotifyOwner(tx, env, loaded, outcome.owner, outcome.body);
    });
    return;
  }
  await withTransaction(ctx, async (tx, emit) => {
    const env = doEnv(ctx, emit);
    await outgoingWebhookJobs.remove(tx, job.id);
    let error = outcome.error;
    if (error === null && outcome.content !== null) {
      try {
        await doPostAsBot(tx, env, loaded.bot, loaded.message, outcome.content);
      } catch (err) {
        if (!(err instanceof JsonableError)) throw err;
        error = err.message;
      }
    }
    if (error === null) return;
    await doFailInConversation(tx, env, loaded, error);
    const detail = `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${error}`;
    await doNotifyOwner(tx, env, loaded, detail, outcome.body);
  });
}

/** How soon after a sent message the worker looks for the jobs it may have queued. */
const WAKE_DELAY_MS = 50;

/** Takes one job for this process until its request's timeout has long passed. */
async function claim(deps: OutgoingWebhookWorkerDeps, job: OutgoingWebhookJobRow): Promise<{ job: OutgoingWebhookJobRow; loaded: Loaded } | null> {
  const realm = await getRealm(deps.store.reader, job.realm_id);
  if (!realm) return null;
  const ctx = actionCtx(deps, { realm, actor: null, client: "Internal" });
  const leaseUntil = systemClock.nowMs() + deps.config.outgoingWebhookTimeoutSeconds * 1000 + LEASE_MARGIN_MS;
  const claimed = await withTransaction(ctx, (tx) => outgoingWebhookJobs.claim(tx, job, leaseUntil));
  if (!claimed) return null;
  const loaded = await load(deps, claimed);
  if (!loaded) await withTransaction(ctx, (tx) => outgoingWebhookJobs.remove(tx, claimed.id));
  return loaded ? { job: claimed, loaded } : null;
}

/**
 * Starts delivering outgoing-webhook jobs: those left from before (a restart) at once, new ones as
 * their messages are sent. Returns the handle to stop it.
 */
export function startOutgoingWebhookWorker(deps: OutgoingWebhookWorkerDeps): OutgoingWebhookWorker {
  const loop = new JobLoop(
    {
      name: "outgoing webhook",
      due: (nowMs, limit) => outgoingWebhookJobs.due(deps.store.reader, nowMs, limit),
      nextDueMs: () => outgoingWebhookJobs.nextDue(deps.store.reader),
      claim: (job) => claim(deps, job),
      run: async ({ job, loaded }, stop) => settle(deps, job, loaded, await request(deps, loaded, job.trigger, stop)),
    },
    deps.log,
    { maxInFlight: MAX_IN_FLIGHT, maxSleepMs: MAX_SLEEP_MS, retryMs: RETRY_MS, wakeDelayMs: WAKE_DELAY_MS },
  );
  const unlisten = outgoingWebhookJobsQueued.listen(() => loop.wakeSoon());
  void loop.wake();
  return {
    stop: () => {
      unlisten();
      return loop.stop();
    },
  };
}
