/**
 * Idle-queue collection: a queue nobody polled, registered or was answered on for its lifespan
 * (10 minutes by default) is dropped; a later fetch gets BAD_EVENT_QUEUE_ID. Sweeps run on the
 * injected clock, so tests drive them by advancing time.
 */
import type { Clock, TimerHandle } from "../clock.ts";
import type { EventQueue } from "./queue.ts";

/** The longest pause between sweeps; shorter when queues live shorter than this. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

/** How often to sweep for queues whose idle lifespan is `idleMs`. */
export function sweepIntervalMs(idleMs: number): number {
  return Math.max(1000, Math.min(MAX_SWEEP_INTERVAL_MS, idleMs));
}

/** The queues to collect: idle for their lifespan, with no poll waiting on them. */
export function expiredQueues(queues: Iterable<EventQueue>, nowMs: number, isWaiting: (queueId: string) => boolean): EventQueue[] {
  return [...queues].filter((q) => !isWaiting(q.id) && q.isExpired(nowMs));
}

/** Runs `sweep` every `intervalMs` of the clock's time until stopped. */
export function scheduleSweeps(clock: Clock, intervalMs: number, sweep: () => void): { stop(): void } {
  let handle: TimerHandle | null = null;
  let stopped = false;
  const arm = () => {
    handle = clock.setTimer(intervalMs, () => {
      if (stopped) return;
      sweep();
      arm();
    });
  };
  arm();
  return {
    stop() {
      stopped = true;
      handle?.cancel();
    },
  };
}
