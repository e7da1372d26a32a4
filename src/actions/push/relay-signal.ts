/**
 * How this process's push relay worker hears that a call was queued (after its transaction
 * committed), so it sends it at once rather than at its next look (every 30 s, which is also how
 * other processes' queued calls are found).
 */
import { JobSignal } from "../job-loop.ts";

const queued = new JobSignal();

/** Registers the worker's wake; returns the unregistration. */
export function onRelayCallQueued(listener: () => void): () => void {
  return queued.listen(listener);
}

/** Tells the worker a call was queued. */
export function relayCallQueued(): void {
  queued.fire();
}
