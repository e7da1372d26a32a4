/**
 * Presence reports that announce nothing, written behind. The steady once-a-minute ping of every
 * client moves its user's stored times and nothing else (no event: clients poll for them); each
 * such write was a transaction of its own. Here such reports wait in memory, the newest per user,
 * and one transaction writes everything waiting every `delayMs` (PRESENCE_WRITE_DELAY_MS), each
 * row under its own sequence number as it is written, so polls by last_update_id miss nothing;
 * they only see a report up to `delayMs` later, far inside the ping interval (60 s) and the
 * offline threshold (140 s). A report that announces (a user coming online, invisible mode) is
 * written at once and drops the user's waiting report first, so an older one never lands after
 * it. What waits is written when the server stops; a crash loses at most `delayMs` of reports,
 * which the clients' next pings restore. With `delayMs` 0 every report is written at once.
 */
import type { UserPresenceRow } from "../schema/presence.ts";

/** The presence columns a report writes (its sequence number is taken when it is written). */
export type PresenceWrite = Omit<UserPresenceRow, "last_update_id">;

/** Writes waiting reports in one transaction. */
type WriteBatch = (rows: PresenceWrite[]) => Promise<void>;

export class PresenceWriteBehind {
  private pending = new Map<number, PresenceWrite>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly writeBatch: WriteBatch,
    /** How long a report may wait; 0 writes through. */
    readonly delayMs: number,
    private readonly onError: (err: unknown, rows: number) => void,
  ) {}

  /** The user's report still waiting, if any (newer than the stored row). */
  waiting(userId: number): PresenceWrite | undefined {
    return this.pending.get(userId);
  }

  /** Queues a report, replacing the user's waiting one; written within `delayMs`. */
  put(row: PresenceWrite): void {
    this.pending.set(row.user_id, row);
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.delayMs);
    this.timer.unref();
  }

  /** Forgets a user's waiting report (one written at once supersedes it). */
  discard(userId: number): void {
    this.pending.delete(userId);
  }

  /** Writes everything waiting now (after a write already under way); a failed batch waits for the next. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    this.pending.clear();
    this.running = this.writeBatch(rows)
      .catch((err: unknown) => {
        // Back in the queue unless a newer report of the same user came meanwhile.
        for (const row of rows) if (!this.pending.has(row.user_id)) this.pending.set(row.user_id, row);
        this.onError(err, rows.length);
        if (this.timer === null && this.delayMs > 0) {
          this.timer = setTimeout(() => {
            this.timer = null;
            void this.flush();
          }, this.delayMs);
          this.timer.unref();
        }
      })
      .finally(() => {
        this.running = null;
      });
    await this.running;
  }

  /** Stops the timer and writes what waits (call before the store closes). */
  async close(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
