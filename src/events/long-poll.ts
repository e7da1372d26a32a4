/**
 * Polls waiting on their queue (GET /events without dont_block): at most one per queue. A poll
 * waits as a callback, not a promise: waking it runs the callback at once, so a fan-out answers
 * each poll inside the delivery loop (its bytes go out while the loop goes on) rather than
 * queuing a chain of promise continuations per poll, whose suspended frames the garbage
 * collector has to copy and trace while thousands of polls wait.
 */
import type { TimerHandle } from "../clock.ts";

type Waiter = { release: () => void; timer: TimerHandle | null };

/** The waiting polls of this process, by queue id. */
export class LongPolls {
  private waiters = new Map<string, Waiter>();

  /**
   * Waits until the queue is woken, then calls `release`. `startTimer` arms the waiter's own
   * timeout (the heartbeat), cancelled when the poll is released. A newer poll on the same queue
   * releases the older one, as a client that reconnects supersedes its previous request.
   */
  wait(queueId: string, startTimer: () => TimerHandle, release: () => void): void {
    this.wake(queueId);
    const waiter: Waiter = { release, timer: null };
    this.waiters.set(queueId, waiter);
    waiter.timer = startTimer();
  }

  /** Releases the poll waiting on a queue, if any. */
  wake(queueId: string): void {
    const waiter = this.waiters.get(queueId);
    if (!waiter) return;
    this.waiters.delete(queueId);
    waiter.timer?.cancel();
    waiter.release();
  }

  /** Whether a poll is waiting on the queue (such a queue is in use, never idle). */
  isWaiting(queueId: string): boolean {
    return this.waiters.has(queueId);
  }

  /** Releases every waiting poll (shutdown). */
  wakeAll(): void {
    for (const queueId of [...this.waiters.keys()]) this.wake(queueId);
  }
}
