/**
 * The loop of a worker that runs persisted jobs off the request path (outgoing-webhook
 * deliveries, push relay calls): one pass at a time takes the due jobs there is room for and
 * starts each beside the loop; a finished job, a wake (its JobSignal) or the next due time starts
 * the next pass. Jobs live in the database, taken by a lease (see the stores), so a restart or
 * another process picks up what this one left.
 */
import type { Logger } from "pino";
import { systemClock } from "../clock.ts";

/**
 * A worker's wake-up within this process: what tells it that a committed transaction queued
 * jobs for it (fired through `emit.afterCommit`, or after a commit), rather than the client
 * event bus, whose deliveries are the clients' events. Other processes' loops find such jobs at
 * their next look (maxSleepMs).
 */
export class JobSignal {
  private readonly listeners = new Set<() => void>();

  /** Registers a listener; returns its unregistration. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Calls every listener. */
  readonly fire = (): void => {
    for (const listener of this.listeners) listener();
  };
}

/** Where a loop's jobs come from and what it does with one. */
export type JobSource<Job, Taken> = {
  /** For log lines. */
  name: string;
  /** Jobs due at `nowMs`, at most `limit`, earliest first. */
  due(nowMs: number, limit: number): Promise<Job[]>;
  /** The earliest due time of any job, or null. */
  nextDueMs(): Promise<number | null>;
  /** Takes a job for this process (null: another took it, or it is gone). */
  claim(job: Job): Promise<Taken | null>;
  /** Runs a taken job to its end (it reschedules or deletes it); `stop` aborts on shutdown. */
  run(taken: Taken, stop: AbortSignal): Promise<void>;
};

/** How a loop paces itself. */
export type JobLoopLimits = {
  /** Jobs in flight at once; a slow one holds one slot, not the loop. */
  maxInFlight: number;
  /** The longest sleep: another process's job, or one whose process died, is seen within it. */
  maxSleepMs: number;
  /** After a pass the database refused, or that found due jobs it could not take, wait this long. */
  retryMs: number;
  /** How soon after wakeSoon() the loop looks. */
  wakeDelayMs: number;
};

export class JobLoop<Job, Taken> {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private soon: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly source: JobSource<Job, Taken>,
    private readonly log: Logger,
    private readonly limits: JobLoopLimits,
  ) {}

  /** Takes what is due now, then sleeps until the next due job. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.clearTimer();
    this.running = this.passes().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** A pass within wakeDelayMs, unless one is already coming. */
  wakeSoon(): void {
    if (this.stopped || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      void this.wake();
    }, this.limits.wakeDelayMs);
    this.soon.unref();
  }

  /** Stops taking jobs, aborts the running ones and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    if (this.soon) clearTimeout(this.soon);
    this.stopping.abort();
    await this.running;
    await Promise.allSettled([...this.inFlight]);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async passes(): Promise<void> {
    for (;;) {
      this.again = false;
      const sleepMs = await this.pass();
      if (this.stopped) return;
      if (this.again) continue;
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.wake();
      }, sleepMs);
      this.timer.unref();
      return;
    }
  }

  /** Takes and starts the due jobs there is room for; returns how long to sleep. */
  private async pass(): Promise<number> {
    const { maxInFlight, maxSleepMs, retryMs } = this.limits;
    try {
      let taken = 0;
      const room = maxInFlight - this.inFlight.size;
      if (room > 0) {
        for (const job of await this.source.due(systemClock.nowMs(), room)) {
          if (this.stopped) return maxSleepMs;
          const claimed = await this.source.claim(job);
          if (claimed !== null) {
            this.start(claimed);
            taken++;
          }
        }
      }
      // With no room, a finishing job wakes the loop.
      if (maxInFlight - this.inFlight.size <= 0) return maxSleepMs;
      const next = await this.source.nextDueMs();
      if (next === null) return maxSleepMs;
      const wait = Math.min(Math.max(next - systemClock.nowMs(), 0), maxSleepMs);
      // Due jobs nobody could take (another process mid-claim): do not spin.
      return wait === 0 && taken === 0 ? retryMs : wait;
    } catch (err) {
      this.log.error({ err }, `${this.source.name} pass failed`);
      return retryMs;
    }
  }

  /** Runs one taken job beside the loop. */
  private start(taken: Taken): void {
    const run = (async () => {
      try {
        await this.source.run(taken, this.stopping.signal);
      } catch (err) {
        // Left as taken: it comes due again when its lease ends.
        this.log.error({ err }, `${this.source.name} job failed`);
      }
    })();
    const tracked = run.finally(() => {
      this.inFlight.delete(tracked);
      void this.wake();
    });
    this.inFlight.add(tracked);
  }
}
