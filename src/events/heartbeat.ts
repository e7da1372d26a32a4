/**
 * Heartbeats: a poll that has had nothing to return for a heartbeat interval since the client
 * was last answered gets a `heartbeat` event, so clients and proxies see the connection alive.
 */
import type { Clock, TimerHandle } from "../clock.ts";
import type { HeartbeatEvent } from "./kinds/core.ts";

/** The heartbeat event (the queue adds its id). */
export function heartbeatEvent(): HeartbeatEvent {
  return { type: "heartbeat" };
}

/**
 * Milliseconds until a heartbeat is due, counted from when the client was last answered; 0 when
 * it is already due (a client that comes back late with nothing pending is answered at once).
 */
export function heartbeatDelayMs(lastServedMs: number, nowMs: number, heartbeatMs: number): number {
  return Math.max(0, lastServedMs + heartbeatMs - nowMs);
}

/** Arms the heartbeat of a waiting poll on the injected clock. */
export function scheduleHeartbeat(clock: Clock, delayMs: number, beat: () => void): TimerHandle {
  return clock.setTimer(delayMs, beat);
}
