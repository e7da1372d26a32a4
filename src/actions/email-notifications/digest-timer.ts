/**
 * When digests are composed: a pass at start and then every hour on the server's clock (a test
 * drives it by advancing the clock), each sending the digests of the organizations whose digest
 * weekday it is; a user considered once is left out for a day, so each gets one that day.
 */
import type { TimerHandle } from "../../clock.ts";
import type { ServerDeps } from "../context.ts";
import { runDigestPass } from "./digest.ts";

/** Between two passes. */
const PASS_INTERVAL_MS = 60 * 60 * 1000;

/** The running passes; stop() before closing the store. */
export type DigestTimer = { stop(): Promise<void> };

/** Starts the digest passes (the first at once). */
export function startDigests(deps: ServerDeps): DigestTimer {
  let timer: TimerHandle | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  const pass = async () => {
    try {
      const queued = await runDigestPass(deps);
      if (queued > 0) deps.log.info({ digests: queued }, "digest emails queued");
    } catch (err) {
      deps.log.error({ err }, "digest pass failed");
    } finally {
      running = null;
      if (!stopped) timer = deps.clock.setTimer(PASS_INTERVAL_MS, start);
    }
  };
  const start = () => {
    timer = null;
    if (!stopped && running === null) running = pass();
  };
  start();
  return {
    stop: async () => {
      stopped = true;
      timer?.cancel();
      await running;
    },
  };
}
