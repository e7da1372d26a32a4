/**
 * One event queue per tab: registers, long-polls `GET /json/events`, and when the queue is
 * gone (BAD_EVENT_QUEUE_ID after a server restart or a long sleep, a `restart` event) registers
 * again and hands the fresh snapshot over, so the state is resynchronised rather than patched.
 * Network failures are retried with a growing wait (reset when the browser is back online).
 */
import { api, ApiError, type Params } from "./client.ts";
import type { RegisterResponse, ServerEvent } from "./types.ts";

/** What the queue reports to its owner. */
export type QueueHandlers = {
  /** A new snapshot: first registration, or after the old queue was lost. */
  snapshot(state: RegisterResponse): void;
  /** Events, in order. */
  events(events: ServerEvent[]): void;
  /** Whether the server is reachable (false while retrying after network errors). */
  connected(ok: boolean): void;
  /** The session ended (401): the owner shows the login page. */
  signedOut(): void;
};

/** First and largest wait between retries after a network error, in ms. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;
/**
 * A long poll unanswered for this long is abandoned and made again: the server answers within a
 * minute (a heartbeat at the latest), so silence means a connection lost without an error.
 */
const POLL_TIMEOUT_MS = 90_000;

/** Runs the register/poll loop until stop(). */
export class EventQueue {
  private queueId: string | null = null;
  private lastEventId = -1;
  private stopped = false;
  private abort: AbortController | null = null;
  private retryMs = RETRY_FIRST_MS;
  /** After a failure the next poll returns at once (dont_block), so "connected" shows without waiting for an event. */
  private recovering = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly registerParams: Params,
    private readonly on: QueueHandlers,
  ) {}

  /** Starts the loop (returns at once). */
  start(): void {
    window.addEventListener("online", this.retryNow);
    window.addEventListener("offline", this.wentOffline);
    window.addEventListener("pagehide", this.dropQueue);
    void this.loop();
  }

  /** Stops polling and deletes the queue on the server. */
  stop(): void {
    this.stopped = true;
    window.removeEventListener("online", this.retryNow);
    window.removeEventListener("offline", this.wentOffline);
    window.removeEventListener("pagehide", this.dropQueue);
    this.abort?.abort();
    this.wake?.();
    this.dropQueue();
  }

  private readonly retryNow = (): void => {
    this.retryMs = RETRY_FIRST_MS;
    this.wake?.();
  };

  /** The browser lost the network: say so now rather than when the poll times out. */
  private readonly wentOffline = (): void => {
    this.on.connected(false);
    this.abort?.abort();
  };

  private readonly dropQueue = (): void => {
    if (this.queueId !== null) void api.deleteQueue(this.queueId).catch(() => undefined);
    this.queueId = null;
  };

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.queueId === null) await this.register();
        else await this.poll();
        this.retryMs = RETRY_FIRST_MS;
        this.on.connected(true);
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof ApiError && err.code === "BAD_EVENT_QUEUE_ID") {
          this.queueId = null;
          continue;
        }
        if (err instanceof ApiError && err.status === 401) {
          this.stopped = true;
          this.on.signedOut();
          return;
        }
        this.on.connected(false);
        this.recovering = true;
        await this.pause(this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
      }
    }
  }

  private async register(): Promise<void> {
    const state = await api.register(this.registerParams);
    if (this.stopped) return;
    this.queueId = state.queue_id;
    this.lastEventId = state.last_event_id;
    this.on.snapshot(state);
  }

  private async poll(): Promise<void> {
    const queueId = this.queueId;
    if (queueId === null) return;
    const abort = new AbortController();
    this.abort = abort;
    const timer = setTimeout(() => abort.abort(), POLL_TIMEOUT_MS);
    const res = await api.events(queueId, this.lastEventId, abort.signal, this.recovering).finally(() => clearTimeout(timer));
    this.recovering = false;
    if (this.stopped || queueId !== this.queueId) return;
    for (const event of res.events) this.lastEventId = Math.max(this.lastEventId, event.id);
    if (res.events.some((e) => e.type === "restart")) {
      // The server asks clients to re-register (Zulip's restart event): start afresh.
      this.queueId = null;
      return;
    }
    this.on.events(res.events);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}
