/**
 * Clients under load, as the cluster suite (test/api/cluster.test.ts) runs them against nginx:
 * event clients that long-poll their queue the way Zulip's clients do (poll again as soon as an
 * answer comes; a 5xx is retried with the same queue; any other error ends the loop, where a real
 * client would register a new queue), and senders that send direct messages until stopped.
 */
import type { ApiClient, ApiResponse, Credentials } from "./client.ts";
import { getEvents, type Queue } from "./events.ts";

/** An answer a client got other than success: status and code, or what failed. */
type Failure = string;

/** A 5xx (nginx's own pages included: they are not JSON) is what clients retry with the same queue. */
function isRetryable(failure: { status?: number }): boolean {
  return failure.status === undefined || failure.status >= 500;
}

/** Bounds a client that keeps failing (a bug would otherwise spin the loop). */
const MAX_RETRIES = 200;

export type EventClient = {
  queue: Queue;
  /** The ids of the message events received, in the order they came. */
  messageIds: number[];
  /** Every answer that was not a success (retried 5xx, or the error that ended the loop). */
  failures: Failure[];
  /** For each answer, the value of the response header `opts.header` (nginx's upstreams, say). */
  headers: string[];
  /** Resolves once every id of `ids` has been received (rejects if the loop ends first). */
  received(ids: readonly number[]): Promise<void>;
  /** Ends the loop after its current poll (a heartbeat answers it at the latest). */
  stop(): Promise<void>;
};

/** Long-polls `queue` through `api` until stopped. */
export function startEventClient(api: ApiClient, queue: Queue, opts: { header?: string } = {}): EventClient {
  const messageIds: number[] = [];
  const headers: string[] = [];
  const seen = new Set<number>();
  const failures: Failure[] = [];
  let stopped = false;
  let ended = false;
  const watchers: Array<() => void> = [];
  const notify = () => {
    for (const watcher of watchers.splice(0)) watcher();
  };
  const loop = (async () => {
    let retries = 0;
    while (!stopped) {
      let res: ApiResponse | null = null;
      try {
        res = await getEvents(api, queue.user, { queue_id: queue.queueId, last_event_id: queue.lastEventId });
      } catch (err) {
        failures.push(`no JSON answer: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (res && opts.header) headers.push(res.headers.get(opts.header) ?? "");
      if (res?.status === 200) {
        for (const event of res.body.events as Array<{ id: number; type: string; message?: { id: number } }>) {
          queue.lastEventId = Math.max(queue.lastEventId, event.id);
          if (event.type !== "message" || !event.message) continue;
          messageIds.push(event.message.id);
          seen.add(event.message.id);
        }
        notify();
        continue;
      }
      if (res !== null) failures.push(`${res.status} ${res.body?.code ?? ""} ${res.body?.msg ?? ""}`.trim());
      if (!isRetryable(res ?? {}) || ++retries > MAX_RETRIES) break;
    }
    ended = true;
    notify();
  })();
  return {
    queue,
    messageIds,
    failures,
    headers,
    received(ids) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (ids.every((id) => seen.has(id))) return resolve();
          if (ended) return reject(new Error(`queue ${queue.queueId} stopped polling (${failures.join("; ")}) with ${ids.filter((id) => !seen.has(id)).length} of ${ids.length} messages missing`));
          watchers.push(check);
        };
        check();
      });
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

export type Sender = {
  /** Ids of the messages whose send succeeded. */
  acked: number[];
  /** Sends that got a 5xx or no answer: the message may or may not have been sent. */
  unknown: number;
  /** Other failures (none expected). */
  failures: Failure[];
  /** Resolves once `count` more sends have succeeded than had when it was called. */
  sent(count: number): Promise<void>;
  stop(): Promise<void>;
};

/** `workers` concurrent loops sending direct messages from `from` to `to` through `api` until stopped. */
export function startSender(api: ApiClient, from: Credentials, to: number, workers: number): Sender {
  const acked: number[] = [];
  const failures: Failure[] = [];
  let unknown = 0;
  let stopped = false;
  const watchers: Array<() => void> = [];
  const sender: Sender = {
    acked,
    failures,
    get unknown() {
      return unknown;
    },
    sent(count) {
      const target = acked.length + count;
      return new Promise((resolve) => {
        const check = () => (acked.length >= target || stopped ? resolve() : watchers.push(check));
        check();
      });
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
      for (const watcher of watchers.splice(0)) watcher();
    },
  };
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let n = 0; !stopped; n++) {
      let res: ApiResponse | null = null;
      try {
        res = await api.post(from, "/messages", { type: "direct", to: JSON.stringify([to]), content: `load ${worker}.${n}` });
      } catch {
        // not JSON: nginx's own error page
      }
      if (res?.status === 200) {
        acked.push(res.body.id as number);
        for (const watcher of watchers.splice(0)) watcher();
      } else if (isRetryable(res ?? {})) unknown++;
      else failures.push(`${res?.status} ${res?.body?.code ?? ""} ${res?.body?.msg ?? ""}`.trim());
    }
  });
  return sender;
}
