/**
 * The server processes that share one Redis bus, as each of them sees the others (REDIS_URL):
 * - where each listens (INTERNAL_URL), so that an events request for a queue another process
 *   holds can be passed to it (http/forward-events.ts);
 * - which users hold a queue taking message events in each, so that the push worker's "is this
 *   user on Zulip?" counts queues in every process, not only its own;
 * - which processes are restarting: one that stops gracefully saves its queues (events/persist.ts)
 *   and marks itself as restarting until a deadline (EVENT_RESTART_WAIT_SECONDS), before it
 *   answers its waiting polls; it takes the mark off once it listens again. Meanwhile another
 *   process that gets a poll for its queue holds it until then (http/forward-events.ts), where a
 *   crashed process's queues are gone (BAD_EVENT_QUEUE_ID).
 * Every key expires unless its process renews it: a process that crashed drops out within
 * PROCESS_TTL_SECONDS, and a start on the same process id replaces what its crashed run left.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { idChunks } from "../store/engine/chunks.ts";

/** How long a process's keys live unless renewed. */
const PROCESS_TTL_SECONDS = 60;
/** How often a live process renews them. */
const RENEW_INTERVAL_MS = 20_000;
/**
 * How often a process holding polls for a restarting one asks whether it is back. A restart
 * takes seconds, and one read per holding process at this pace costs Redis nothing.
 */
const RETURN_CHECK_MS = 100;

/** This process's entry: its id (the prefix of its queue ids) and the URL other processes reach it at. */
export type ProcessEntry = { processId: string; internalUrl: string };

/** Another process as the registry sees it: where it listens (null: not alive), and until when it is restarting (null: it is not). */
export type ProcessState = { url: string | null; restartingUntilMs: number | null };

/** The polls held for one restarting process, woken together. */
type ReturnWatch = { waiters: Array<{ untilMs: number; resolve(state: ProcessState | null): void }>; timer: NodeJS.Timeout | null };

export class ProcessRegistry {
  private renewTimer: NodeJS.Timeout | null = null;
  /** User ids added or removed while the first write is under way are written after it. */
  private writes: Promise<unknown> = Promise.resolve();
  /** By process id: the restarting processes that polls here wait for. */
  private watches = new Map<string, ReturnWatch>();
  /** Set by releaseWaits. */
  private released = false;

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly self: ProcessEntry,
    private readonly log: Logger,
  ) {}

  /**
   * Connects and enters this process with the users that hold a message queue here now (queues
   * restored at start); throws if Redis cannot be reached.
   */
  static async join(url: string, prefix: string, self: ProcessEntry, holders: Iterable<number>, log: Logger): Promise<ProcessRegistry> {
    const { Redis } = await import("ioredis"); // loaded only with REDIS_URL
    const redis = new Redis(url, { lazyConnect: true });
    await redis.connect();
    const registry = new ProcessRegistry(redis, prefix, self, log);
    const users = [...holders];
    const entry = registry.redis.multi().sadd(registry.processesKey, self.processId).set(registry.urlKey(self.processId), self.internalUrl, "EX", PROCESS_TTL_SECONDS).del(registry.holdersKey(self.processId));
    for (const chunk of idChunks(users)) entry.sadd(registry.holdersKey(self.processId), ...chunk);
    await entry.expire(registry.holdersKey(self.processId), PROCESS_TTL_SECONDS).exec();
    registry.renewTimer = setInterval(() => registry.renew(), RENEW_INTERVAL_MS);
    registry.renewTimer.unref();
    return registry;
  }

  /** Where the process with this id listens (null: not alive), and whether it is restarting. */
  async stateOf(processId: string): Promise<ProcessState> {
    const [url, until] = await this.redis.mget(this.urlKey(processId), this.restartKey(processId));
    const untilMs = Number(until);
    return { url, restartingUntilMs: until !== null && untilMs > Date.now() ? untilMs : null };
  }

  /**
   * Resolves when the restarting process `processId` is back (restarting null), or at `untilMs`
   * with its state then, or with null when this process stops waiting (releaseWaits). The polls
   * waiting for one process share one check.
   */
  awaitReturn(processId: string, untilMs: number): Promise<ProcessState | null> {
    if (this.released) return Promise.resolve(null);
    return new Promise((resolve) => {
      let watch = this.watches.get(processId);
      if (!watch) {
        watch = { waiters: [], timer: null };
        this.watches.set(processId, watch);
      }
      watch.waiters.push({ untilMs, resolve });
      if (watch.timer === null) this.checkReturn(processId, watch);
    });
  }

  /**
   * Marks this process as restarting until `untilMs` (a graceful stop, before it answers its
   * polls: see the file's comment). Failing to is logged: its clients then register again.
   */
  async markRestarting(untilMs: number): Promise<void> {
    try {
      await this.redis.set(this.restartKey(this.self.processId), String(untilMs), "PX", Math.max(1, untilMs - Date.now()));
    } catch (err) {
      this.log.warn({ err }, "could not mark this process as restarting in Redis: its clients will register again");
    }
  }

  /** This process listens (again): polls held for it elsewhere come to it now. */
  async serving(): Promise<void> {
    try {
      await this.redis.del(this.restartKey(this.self.processId));
    } catch (err) {
      this.log.warn({ err }, "could not take this process's restart mark off in Redis: polls held for it elsewhere wait out its deadline");
    }
  }

  /** Ends every awaitReturn with null, now and from now on (this process is stopping: its held polls are answered). */
  releaseWaits(): void {
    this.released = true;
    for (const watch of this.watches.values()) {
      if (watch.timer) clearTimeout(watch.timer);
      for (const waiter of watch.waiters) waiter.resolve(null);
    }
    this.watches.clear();
  }

  private checkReturn(processId: string, watch: ReturnWatch): void {
    watch.timer = setTimeout(async () => {
      let state: ProcessState | null = null;
      try {
        state = await this.stateOf(processId);
      } catch (err) {
        this.log.warn({ err }, "could not read from Redis whether a restarting process is back");
      }
      // Released meanwhile (releaseWaits): its waiters are answered.
      if (this.watches.get(processId) !== watch) return;
      const now = Date.now();
      const back = state !== null && state.restartingUntilMs === null;
      const due = watch.waiters.filter((waiter) => back || waiter.untilMs <= now);
      watch.waiters = watch.waiters.filter((waiter) => !due.includes(waiter));
      const answer = state ?? { url: null, restartingUntilMs: null };
      for (const waiter of due) waiter.resolve(answer);
      if (watch.waiters.length > 0) return this.checkReturn(processId, watch);
      watch.timer = null;
      this.watches.delete(processId);
    }, RETURN_CHECK_MS);
  }

  /** Records that a user now holds (or no longer holds) a message queue in this process. */
  holderChanged(userId: number, holds: boolean): void {
    const key = this.holdersKey(this.self.processId);
    const write = holds ? this.redis.sadd(key, userId) : this.redis.srem(key, userId);
    this.writes = write.catch((err: unknown) => this.log.warn({ err }, "could not record an event queue holder in Redis"));
  }

  /** Of these users, those holding a message queue in another live process. */
  async holdersElsewhere(userIds: number[]): Promise<Set<number>> {
    const found = new Set<number>();
    if (userIds.length === 0) return found;
    const others = (await this.redis.smembers(this.processesKey)).filter((id) => id !== this.self.processId);
    for (const processId of others) {
      for (const chunk of idChunks(userIds)) {
        const member = await this.redis.smismember(this.holdersKey(processId), ...chunk);
        chunk.forEach((id, i) => {
          if (member[i] === 1) found.add(id);
        });
      }
    }
    return found;
  }

  /**
   * Leaves: this process's keys go at once (a stop), but for its restart mark, and the
   * connection closes.
   */
  async leave(): Promise<void> {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.releaseWaits();
    await this.writes;
    try {
      const { processId } = this.self;
      await this.redis.multi().srem(this.processesKey, processId).del(this.urlKey(processId), this.holdersKey(processId)).exec();
    } catch (err) {
      this.log.warn({ err }, "could not remove this process from Redis: its keys expire on their own");
    }
    await this.redis.quit();
  }

  private renew(): void {
    const { processId, internalUrl } = this.self;
    this.redis
      .multi()
      .sadd(this.processesKey, processId)
      .set(this.urlKey(processId), internalUrl, "EX", PROCESS_TTL_SECONDS)
      .expire(this.holdersKey(processId), PROCESS_TTL_SECONDS)
      .exec()
      .catch((err: unknown) => this.log.warn({ err }, "could not renew this process's keys in Redis"));
    void this.dropDead();
  }

  /** Takes processes whose keys expired (they crashed) out of the set of processes. */
  private async dropDead(): Promise<void> {
    try {
      const ids = await this.redis.smembers(this.processesKey);
      if (ids.length === 0) return;
      // One round trip for every process's key, and one for the removal.
      const checks = this.redis.pipeline();
      for (const id of ids) checks.exists(this.urlKey(id));
      const answers = (await checks.exec()) ?? [];
      // [error, count] per id: a failed check (no count) keeps its process.
      const dead = ids.filter((_, i) => answers[i]?.[1] === 0);
      if (dead.length > 0) await this.redis.srem(this.processesKey, ...dead);
    } catch (err) {
      this.log.warn({ err }, "could not tidy the set of processes in Redis");
    }
  }

  private get processesKey(): string {
    return `${this.prefix}:processes`;
  }

  private urlKey(processId: string): string {
    return `${this.prefix}:process:${processId}:url`;
  }

  private restartKey(processId: string): string {
    return `${this.prefix}:process:${processId}:restarting`;
  }

  private holdersKey(processId: string): string {
    return `${this.prefix}:process:${processId}:holders`;
  }
}
