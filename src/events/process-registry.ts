/**
 * The server processes that share one Redis bus, as each of them sees the others (REDIS_URL):
 * - where each listens (INTERNAL_URL), so that an events request for a queue another process
 *   holds can be passed to it (http/forward-events.ts);
 * - which users hold a queue taking message events in each, so that the push worker's "is this
 *   user on Zulip?" counts queues in every process, not only its own.
 * Every key expires unless its process renews it: a process that crashed drops out within
 * PROCESS_TTL_SECONDS, and a start on the same process id replaces what its crashed run left.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { idChunks } from "../store/chunks.ts";

/** How long a process's keys live unless renewed. */
const PROCESS_TTL_SECONDS = 60;
/** How often a live process renews them. */
const RENEW_INTERVAL_MS = 20_000;

/** This process's entry: its id (the prefix of its queue ids) and the URL other processes reach it at. */
export type ProcessEntry = { processId: string; internalUrl: string };

export class ProcessRegistry {
  private renewTimer: NodeJS.Timeout | null = null;
  /** User ids added or removed while the first write is under way are written after it. */
  private writes: Promise<unknown> = Promise.resolve();

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

  /** Where the process with this id listens, if it is alive. */
  async urlOf(processId: string): Promise<string | null> {
    return this.redis.get(this.urlKey(processId));
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

  /** Leaves: this process's keys go at once (a stop), and the connection closes. */
  async leave(): Promise<void> {
    if (this.renewTimer) clearInterval(this.renewTimer);
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

  private holdersKey(processId: string): string {
    return `${this.prefix}:process:${processId}:holders`;
  }
}
