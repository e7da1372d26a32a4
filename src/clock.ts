/** An injectable clock: real time in production, driven by tests through the test-control route. */

/** A timer set on a clock, cancellable until it fires. */
export type TimerHandle = { cancel(): void };

/** Time as the server sees it: the wall clock, or one a test drives. */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** Runs `fn` after `ms` milliseconds of this clock's time. */
  setTimer(ms: number, fn: () => void): TimerHandle;
}

/** Whole UNIX seconds of a clock. */
export function nowSeconds(clock: Clock): number {
  return Math.floor(clock.nowMs() / 1000);
}

/** The wall clock. */
export const systemClock: Clock = {
  nowMs: () => Date.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * A clock that starts at real time and then stands still, moving only when advanced (so tests
 * see exact elapsed times); timers fire as it passes them.
 */
export class ManualClock implements Clock {
  private readonly startMs = Date.now();
  private offsetMs = 0;
  private timers = new Set<{ at: number; fn: () => void }>();

  nowMs(): number {
    return this.startMs + this.offsetMs;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const timer = { at: this.nowMs() + ms, fn };
    this.timers.add(timer);
    return { cancel: () => this.timers.delete(timer) };
  }

  /** Moves time forward and fires every timer that came due, oldest first. */
  advance(ms: number): void {
    this.offsetMs += ms;
    const now = this.nowMs();
    const due = [...this.timers].filter((t) => t.at <= now).sort((a, b) => a.at - b.at);
    for (const timer of due) {
      this.timers.delete(timer);
      timer.fn();
    }
  }
}
