/**
 * Counting requests per key in a time window (README.md "Rate limits"): in this process's memory,
 * or in Redis when REDIS_URL is set, so that every process sharing the database shares the counts.
 * Windows are fixed and start at a key's first counted request, read from the server's clock (so
 * tests move them with the test clock, on both stores). If Redis cannot be reached, requests are
 * let through (fail open) and a warning is logged: limits protect the server, they must not stop it.
 */
import crypto from "node:crypto";
import type { Redis } from "ioredis";
import type { Clock } from "./clock.ts";
import type { Config, RateLimitRule } from "./config.ts";

/** One key's window after a request: what the X-RateLimit-* headers report. */
export type RateLimitState = {
  limit: number;
  /** Requests left in the window (0 once at or over the limit). */
  remaining: number;
  /** When the window ends, in milliseconds since the epoch. */
  resetMs: number;
  /** Whether the request is refused. */
  limited: boolean;
  /** Whole seconds until the window ends, at least 1 (Retry-After). */
  retryAfterSeconds: number;
};

/** A key's open window. */
type CounterWindow = { startMs: number; count: number };

/** Where the counts live. Methods may throw (Redis down); RateLimiter fails open. */
interface CounterStore {
  /** Counts one request for `key`, opening a window at `nowMs` if none is open. */
  increment(key: string, nowMs: number, windowMs: number): Promise<CounterWindow>;
  /** The open window of `key`, without counting. */
  read(key: string, nowMs: number, windowMs: number): Promise<CounterWindow | null>;
  remove(key: string): Promise<void>;
  close(): Promise<void>;
}

/** The log lines a store writes (a pino logger fits). */
type StoreLog = { warn(obj: object, msg: string): void; info(msg: string): void };

// Expired windows are dropped at most once a minute, so keys that stopped coming do not pile up.
const SWEEP_INTERVAL_MS = 60_000;

/** Counts in this process's memory: a Map lookup per request. */
class MemoryCounterStore implements CounterStore {
  private windows = new Map<string, CounterWindow & { windowMs: number }>();
  private lastSweepMs = 0;

  async increment(key: string, nowMs: number, windowMs: number): Promise<CounterWindow> {
    if (nowMs - this.lastSweepMs >= SWEEP_INTERVAL_MS) this.sweep(nowMs);
    let window = this.open(key, nowMs);
    if (!window) {
      window = { startMs: nowMs, count: 0, windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { startMs: window.startMs, count: window.count };
  }

  async read(key: string, nowMs: number): Promise<CounterWindow | null> {
    const window = this.open(key, nowMs);
    return window ? { startMs: window.startMs, count: window.count } : null;
  }

  async remove(key: string): Promise<void> {
    this.windows.delete(key);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private open(key: string, nowMs: number): (CounterWindow & { windowMs: number }) | undefined {
    const window = this.windows.get(key);
    if (window && nowMs - window.startMs >= window.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private sweep(nowMs: number): void {
    this.lastSweepMs = nowMs;
    for (const [key, window] of this.windows) {
      if (nowMs - window.startMs >= window.windowMs) this.windows.delete(key);
    }
  }
}

// One atomic step: open a window at the caller's time (ARGV[1]) if none is open for ARGV[2] ms,
// else count one more. The hash holds the start (s) and the count (n); its expiry only cleans up.
const INCREMENT_SCRIPT = `
local start = redis.call('HGET', KEYS[1], 's')
if (not start) or (tonumber(ARGV[1]) - tonumber(start) >= tonumber(ARGV[2])) then
  redis.call('HSET', KEYS[1], 's', ARGV[1], 'n', 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {ARGV[1], 1}
end
return {start, redis.call('HINCRBY', KEYS[1], 'n', 1)}
`;
const INCREMENT_SHA = crypto.createHash("sha1").update(INCREMENT_SCRIPT).digest("hex");

// A key outlives its window by this much in Redis, so clocks of processes a little apart agree.
const EXPIRY_SLACK_MS = 60_000;
// A request waits at most this long for Redis before it is let through uncounted.
const REDIS_COMMAND_TIMEOUT_MS = 250;

function toWindow(start: unknown, count: unknown): CounterWindow {
  const startMs = Number(start);
  const n = Number(count);
  if (!Number.isFinite(startMs) || !Number.isInteger(n)) throw new Error("unexpected rate-limit counter in Redis");
  return { startMs, count: n };
}

/** Counts in Redis, shared by every process using the same database and Redis. */
class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Connects (failing open: the client keeps reconnecting in the background). */
  static async connect(url: string, prefix: string, health: StoreHealth): Promise<RedisCounterStore> {
    // No offline queue: while Redis is away a command fails at once instead of holding the request.
    const { Redis } = await import("ioredis"); // loaded only with REDIS_URL
    const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
    redis.on("error", (err: unknown) => health.failed(err));
    await redis.connect().catch((err: unknown) => health.failed(err));
    return new RedisCounterStore(redis, prefix);
  }

  async increment(key: string, nowMs: number, windowMs: number): Promise<CounterWindow> {
    const args = [this.prefix + key, String(nowMs), String(windowMs), String(windowMs + EXPIRY_SLACK_MS)];
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(INCREMENT_SHA, 1, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith("NOSCRIPT")) throw err;
      reply = await this.redis.eval(INCREMENT_SCRIPT, 1, ...args);
    }
    if (!Array.isArray(reply)) throw new Error("unexpected rate-limit script reply");
    return toWindow(reply[0], reply[1]);
  }

  async read(key: string, nowMs: number, windowMs: number): Promise<CounterWindow | null> {
    const [start, count] = await this.redis.hmget(this.prefix + key, "s", "n");
    if (start === null || count === null) return null;
    const window = toWindow(start, count);
    return nowMs - window.startMs >= windowMs ? null : window;
  }

  async remove(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** Logs when the counters become unavailable and when they are back, not on every request. */
class StoreHealth {
  private healthy = true;

  constructor(private readonly log: StoreLog) {}

  failed(err: unknown): void {
    if (!this.healthy) return;
    this.healthy = false;
    this.log.warn({ err }, "rate-limit counters unavailable (Redis): requests are not limited until it is back");
  }

  ok(): void {
    if (this.healthy) return;
    this.healthy = true;
    this.log.info("rate-limit counters available again");
  }
}

/** One rule over a store: counts requests per key and says whether one is over the limit. */
export class RateLimiter {
  private readonly windowMs: number;

  constructor(
    private readonly store: CounterStore | null,
    private readonly health: StoreHealth | null,
    private readonly clock: Clock,
    private readonly name: string,
    private readonly rule: RateLimitRule,
  ) {
    this.windowMs = rule.windowSeconds * 1000;
  }

  /** Counts one request for `key`; its state, or null when not limiting (rule off, store down). */
  async consume(key: string): Promise<RateLimitState | null> {
    if (!this.store || this.rule.limit <= 0) return null;
    const nowMs = this.clock.nowMs();
    const window = await this.guard(this.store.increment(`${this.name}:${key}`, nowMs, this.windowMs));
    if (!window) return null;
    return this.state(window, nowMs, window.count > this.rule.limit);
  }

  /** The state of `key` without counting; `limited` when one more request would be over. */
  async peek(key: string): Promise<RateLimitState | null> {
    if (!this.store || this.rule.limit <= 0) return null;
    const nowMs = this.clock.nowMs();
    const window = await this.guard(this.store.read(`${this.name}:${key}`, nowMs, this.windowMs));
    if (window === undefined) return null;
    return this.state(window ?? { startMs: nowMs, count: 0 }, nowMs, (window?.count ?? 0) >= this.rule.limit);
  }

  /** Forgets `key`'s window (a success after failures). */
  async reset(key: string): Promise<void> {
    if (!this.store || this.rule.limit <= 0) return;
    await this.guard(this.store.remove(`${this.name}:${key}`));
  }

  private state(window: CounterWindow, nowMs: number, limited: boolean): RateLimitState {
    const resetMs = window.startMs + this.windowMs;
    return {
      limit: this.rule.limit,
      remaining: Math.max(0, this.rule.limit - window.count),
      resetMs,
      limited,
      retryAfterSeconds: Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
    };
  }

  /** The store's answer, or undefined (logged once) when the store failed: fail open. */
  private async guard<T>(pending: Promise<T>): Promise<T | undefined> {
    try {
      const value = await pending;
      this.health?.ok();
      return value;
    } catch (err) {
      this.health?.failed(err);
      return undefined;
    }
  }
}

/**
 * Several rules over one key (Zulip's lists of (window, limit) pairs, as password_reset_form_by_email's
 * hour and day): a request is refused while any rule is at its limit, and only an allowed one counts.
 */
export class RateLimitRules {
  constructor(private readonly limiters: readonly RateLimiter[]) {}

  /** Counts one request for `key`, or refuses it (counting nothing) with the longest wait of the rules at their limit. */
  async consume(key: string): Promise<RateLimitState | null> {
    const states = await Promise.all(this.limiters.map((l) => l.peek(key)));
    const refusals = states.filter((state): state is RateLimitState => state?.limited === true);
    if (refusals.length > 0) return refusals.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
    await Promise.all(this.limiters.map((l) => l.consume(key)));
    return null;
  }
}

/** The server's limiters (Zulip's RATE_LIMITING_RULES names), and the store behind them. */
export type RateLimits = {
  /** False with RATE_LIMITS=off: no limiter counts and no response carries X-RateLimit-*. */
  enabled: boolean;
  /** Every authenticated API request, per user id. */
  apiByUser: RateLimiter;
  /** Every API request that is not authenticated (none or failed credentials), per client address. */
  apiByIp: RateLimiter;
  /** Failed password logins, per username. */
  authenticateByUsername: RateLimiter;
  /** Unauthenticated requests that mailed an address they were given, per client address. */
  sendsEmailByIp: RateLimiter;
  /** Password reset requests, per address asked for (lower case). */
  passwordResetByEmail: RateLimitRules;
  /** Email address changes asked for, per user id. */
  emailChangeByUser: RateLimitRules;
  close(): Promise<void>;
};

/** Processes sharing a database share counters; the prefix reveals nothing about the database URL. */
function redisKeyPrefix(config: Pick<Config, "databaseUrl" | "dataDir">): string {
  const digest = crypto.createHash("sha256").update(config.databaseUrl ?? config.dataDir).digest("hex");
  return `parley:ratelimit:${digest.slice(0, 16)}:`;
}

/** The limiters of the configuration: in memory, or in Redis with REDIS_URL; none counting when off. */
export async function openRateLimits(config: Pick<Config, "rateLimits" | "redisUrl" | "databaseUrl" | "dataDir">, clock: Clock, log: StoreLog): Promise<RateLimits> {
  const rules = config.rateLimits;
  let store: CounterStore | null = null;
  let health: StoreHealth | null = null;
  if (rules.enabled && config.redisUrl) {
    health = new StoreHealth(log);
    store = await RedisCounterStore.connect(config.redisUrl, redisKeyPrefix(config), health);
  } else if (rules.enabled) {
    store = new MemoryCounterStore();
  }
  const limiter = (name: string, rule: RateLimitRule) => new RateLimiter(store, health, clock, name, rule);
  return {
    enabled: rules.enabled,
    apiByUser: limiter("api_by_user", rules.apiByUser),
    apiByIp: limiter("api_by_ip", rules.apiByIp),
    authenticateByUsername: limiter("authenticate_by_username", rules.authenticateByUsername),
    sendsEmailByIp: limiter("sends_email_by_ip", rules.sendsEmailByIp),
    passwordResetByEmail: new RateLimitRules(rules.passwordResetByEmail.map((rule) => limiter(`password_reset_form_by_email_${rule.windowSeconds}`, rule))),
    emailChangeByUser: new RateLimitRules(rules.emailChangeByUser.map((rule) => limiter(`email_change_by_user_${rule.windowSeconds}`, rule))),
    close: async () => store?.close(),
  };
}
