/** Counting attempts per key in a time window (failed logins), so repeated failures are refused. */
import type { Clock } from "./clock.ts";

/** Counts attempts per key and says how long a key that went over the limit must wait. */
export interface RateLimiter {
  /** Seconds until `key` may try again, or 0 when it is under the limit. */
  retryAfter(key: string): Promise<number>;
  /** Records one counted attempt for `key`. */
  hit(key: string): Promise<void>;
  /** Forgets `key` (after a success). */
  reset(key: string): Promise<void>;
}

/** An in-process limiter: `limit` hits per `windowSeconds`, fixed windows per key. */
export class MemoryRateLimiter implements RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly enabled = true,
  ) {}

  async retryAfter(key: string): Promise<number> {
    if (!this.enabled) return 0;
    const w = this.current(key);
    if (!w || w.count < this.limit) return 0;
    return Math.max(1, Math.ceil(w.start / 1000 + this.windowSeconds - this.clock.nowMs() / 1000));
  }

  async hit(key: string): Promise<void> {
    const w = this.current(key) ?? { start: this.clock.nowMs(), count: 0 };
    w.count += 1;
    this.windows.set(key, w);
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  private current(key: string): { start: number; count: number } | undefined {
    const w = this.windows.get(key);
    if (w && this.clock.nowMs() - w.start >= this.windowSeconds * 1000) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }
}
