/** Starting and stopping the server: store, migrations, first-start bootstrap, bus and HTTP. */
import type { ServerDeps } from "./actions/context.ts";
import { ensureInitialRealm } from "./actions/organization/bootstrap.ts";
import { ManualClock, systemClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { LocalBus, type ServerBus } from "./events/bus.ts";
import { buildApp, loadRoutes } from "./http/app.ts";
import { testControlEndpoints } from "./http/test-control.ts";
import { migrate, openStore, type Store } from "./store/db.ts";
import { nextMessageId } from "./store/messages/message-inserts.ts";
import { QueueManager } from "./events/queue-manager.ts";
import { keepLoadedQueues, loadQueues, queuesFile, saveQueues } from "./events/persist.ts";
import { busChannel, RedisBus } from "./events/redis-bus.ts";
import { ProcessRegistry } from "./events/process-registry.ts";
import type { QueueHolders } from "./actions/push/away.ts";
import type { Logger } from "pino";
import { openRateLimits } from "./rate-limit.ts";
import { startAttachmentSweep } from "./actions/attachments/sweep.ts";
import { startScheduledMessageWorker } from "./actions/messages/scheduled-worker.ts";
import { startOutgoingWebhookWorker } from "./actions/bots/outgoing-webhook-worker.ts";
import { startEmailWorker } from "./actions/email/worker.ts";
import { startEmailNotificationWorker } from "./actions/email-notifications/worker.ts";
import { startRealmExportWorker } from "./actions/export/export-worker.ts";
import { presenceWriteBehind } from "./actions/users/presence.ts";
import { makeLogger } from "./log.ts";
import { startPushWorker } from "./push-thread.ts";

type RunningServer = { app: Awaited<ReturnType<typeof buildApp>>; store: Store; bus: ServerBus; clock: Clock; url: string; close(): Promise<void> };

/**
 * How often a stopping server closes the connections that went idle since it began to stop: a
 * request under way then (a poll just answered) leaves its connection open after the answer, and
 * Node would wait out the keep-alive timeout (72 s) before the process can exit.
 */
const STOP_REAP_INTERVAL_MS = 50;

/**
 * Which of these users hold a message queue: here, or (with several processes) in any other.
 * Redis failing answers this process's own: push then errs towards notifying.
 */
function queueHolders(queues: QueueManager, processes: ProcessRegistry | null, log: Logger): QueueHolders {
  return async (userIds) => {
    const holders = queues.usersWithMessageQueues(userIds);
    if (processes === null) return holders;
    try {
      for (const id of await processes.holdersElsewhere(userIds.filter((id) => !holders.has(id)))) holders.add(id);
    } catch (err) {
      log.warn({ err }, "could not ask Redis which users hold event queues in other processes");
    }
    return holders;
  };
}

/** Opens the store, runs migrations, creates the first organization if needed and listens. */
export async function startServer(config: Config): Promise<RunningServer> {
  const log = makeLogger(config);
  const store = openStore(config);
  await migrate(store);
  const clock: Clock = config.testControl ? new ManualClock() : systemClock;
  // REDIS_URL: processes sharing the database and Redis deliver each other's events.
  const bus: ServerBus = config.redisUrl
    ? await RedisBus.connect(config.redisUrl, busChannel(config), { backlogLength: config.eventBacklogLength, orderWaitMs: config.eventOrderWaitMs, log })
    : new LocalBus();
  // With other processes reading this one's events, its polls are answered after they went out.
  const queues = new QueueManager(clock, config, { answerAfterTurn: config.redisUrl !== null });
  // The queues a graceful shutdown saved (events/persist.ts), then the bus from where they were
  // saved: they get what other processes published meanwhile, or are dropped if they cannot.
  const savedQueues = queuesFile(config.eventQueuesDir, queues.processId);
  const loaded = loadQueues(queues, savedQueues, log);
  bus.subscribe((delivery) => queues.deliver(delivery));
  // Unless the bus goes on from a saved position, message events are ordered from the next id on.
  const resumed = await bus.start(loaded?.busPosition ?? null, config.redisUrl ? await nextMessageId(store.db, store.engine) : null);
  if (loaded) keepLoadedQueues(queues, loaded, resumed, log);
  // REDIS_URL: the other processes, for events requests about their queues and push's "who is on Zulip".
  const processes = config.redisUrl
    ? await ProcessRegistry.join(config.redisUrl, busChannel(config), { processId: queues.processId, internalUrl: config.internalUrl }, queues.messageQueueHolders(), log)
    : null;
  if (processes) queues.onHolderChange = (userId, holds) => processes.holderChanged(userId, holds);
  // REDIS_URL: rate-limit counters in Redis, shared by the processes (fail open if it goes away).
  const rateLimits = await openRateLimits(config, clock, log);
  // What every action context is made from: the bootstrap, the app and each worker get this one object.
  const deps: ServerDeps = { store, bus, clock, config, log };
  const presenceWrites = presenceWriteBehind(deps);
  await ensureInitialRealm(deps);
  const routes = loadRoutes();
  const endpoints = [...routes.endpoints, ...(config.testControl ? testControlEndpoints() : [])];
  // The services only some endpoints use go to the app alone, which hands them to those routes.
  const services = { queues, loginLimiter: rateLimits.authenticateByUsername, accountLimits: { passwordResetByEmail: rateLimits.passwordResetByEmail, emailChangeByUser: rateLimits.emailChangeByUser }, presenceWrites };
  const app = await buildApp({ ...deps, services, rateLimits, endpoints, rawRoutes: routes.rawRoutes, processes });
  const attachmentSweep = startAttachmentSweep({ db: store.db, clock, config, log });
  const scheduledWorker = await startScheduledMessageWorker(deps);
  const holders = queueHolders(queues, processes, log);
  const pushRelayWorker = startPushWorker(deps, holders);
  const webhookWorker = startOutgoingWebhookWorker(deps);
  const emailWorker = startEmailWorker(deps);
  const emailNotificationWorker = startEmailNotificationWorker(deps, holders);
  const realmExportWorker = await startRealmExportWorker(deps);
  const address = await app.listen({ host: config.host, port: config.port });
  // Polls that other processes held for this one's saved queues while it restarted come here now.
  await processes?.serving();
  log.info({ address, store: store.engine }, "Parley is listening");
  return {
    app,
    store,
    bus,
    clock,
    url: address,
    async close() {
      // The queues are saved below: the other processes hold their next polls until this process
      // is back (or its deadline passes), rather than telling clients the queues are gone.
      await processes?.markRestarting(Date.now() + config.eventRestartWaitSeconds * 1000);
      processes?.releaseWaits();
      // Waiting polls are answered and the HTTP server stops accepting before anything else.
      queues.close();
      const reaper = setInterval(() => app.server.closeIdleConnections(), STOP_REAP_INTERVAL_MS);
      await app.close();
      clearInterval(reaper);
      attachmentSweep.stop();
      await scheduledWorker.stop();
      await webhookWorker.stop();
      await emailNotificationWorker?.stop();
      await realmExportWorker.stop();
      await emailWorker?.stop();
      await pushRelayWorker.stop();
      await presenceWrites.close();
      await rateLimits.close();
      await processes?.leave();
      // The bus hands over everything published so far before it closes; the next start reads on from there.
      await bus.close();
      // Nothing reaches the queues any more: save them for the next start.
      saveQueues(queues, savedQueues, { nowMs: clock.nowMs(), busPosition: bus.position() }, log);
      await store.close();
    },
  };
}
