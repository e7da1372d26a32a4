/**
 * The soak scenario's clients (bench/scenario-soak.ts): every user holds one event queue with a
 * long poll always open, and a paced mix of the requests a team's clients make (sends to
 * channels and direct messages, full registers, message lists, flag updates, marking read,
 * status, presence, typing, edits) goes to the server at a steady rate. Every answer must be a
 * success; every message a send stored must reach the queue of each of its recipients exactly
 * once, and each queue's event ids must follow one another with no gap.
 */
import { basicAuth, type BenchUser } from "./org.ts";
import { prng, sentence, topicName } from "./text.ts";

/** A channel of the soak org and who receives its messages. */
export type SoakChannel = { id: number; name: string; members: BenchUser[] };

/** What the clients saw: answers by request kind, and the delivery check's counts. */
export type SoakCounts = {
  /** Answers per request kind (successes and failures). */
  byKind: Map<string, { ok: number; failed: number; totalMs: number }>;
  /** Non-success answers: 5xx, and every other failure (4xx or a network error). */
  serverErrors: number;
  otherFailures: number;
  firstFailure: string | null;
  /** Requests not started on time because too many were still unanswered (the server fell behind). */
  skipped: number;
  messagesSent: number;
  deliveriesExpected: number;
  deliveriesSeen: number;
  /** Polls that failed without an answer (a network error) and were asked again. */
  pollRetries: number;
  firstPollRetry: string | null;
  /** A queue's event id that did not follow the previous one, or a poll refused. */
  queueFailures: number;
  firstQueueFailure: string | null;
};

/** Answers per request kind, and each kind's share of the mix (weights add to 100). */
const MIX: [kind: string, weight: number][] = [
  ["send to a channel", 24],
  ["send a direct message", 10],
  ["GET /messages", 12],
  ["presence", 12],
  ["typing", 10],
  ["flags: mark read", 8],
  ["status", 6],
  ["register (full) + DELETE /events", 4],
  ["flags: star / unstar", 3],
  ["mark topic as read", 2],
  ["edit a message", 3],
  ["GET /users/me/subscriptions", 3],
  ["GET /users/me", 3],
];

// A request unanswered this long fails; generous, as the machine may be shared (a poll waits up
// to the server's heartbeat, 60 s, for events).
const REQUEST_TIMEOUT_MS = 120_000;
const POLL_TIMEOUT_MS = 180_000;

// At most this many requests of the mix unanswered at once; past it a tick is skipped (and counted).
const MAX_IN_FLIGHT = 200;

type Queue = { id: string; lastEventId: number };

/** The paced clients and the delivery ledger of one soak run. */
export class SoakClients {
  readonly counts: SoakCounts = {
    byKind: new Map(MIX.map(([k]) => [k, { ok: 0, failed: 0, totalMs: 0 }])),
    serverErrors: 0,
    otherFailures: 0,
    firstFailure: null,
    skipped: 0,
    messagesSent: 0,
    deliveriesExpected: 0,
    deliveriesSeen: 0,
    pollRetries: 0,
    firstPollRetry: null,
    queueFailures: 0,
    firstQueueFailure: null,
  };
  private readonly random = prng(37);
  private readonly auth = new Map<number, string>();
  private readonly queues = new Map<number, Queue>();
  /** Per user: ids a send stored whose event has not arrived yet, and ids that arrived before their send's answer. */
  private readonly pending = new Map<number, Set<number>>();
  private readonly early = new Map<number, Set<number>>();
  /** Per user: the newest message ids they received (for flags) and sent (for edits). */
  private readonly received = new Map<number, number[]>();
  private readonly sent = new Map<number, number[]>();
  private readonly topics: string[];
  /** Per channel: the topics a send has used. */
  private readonly topicsUsed = new Map<number, Set<string>>();
  private inFlight = 0;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly users: BenchUser[],
    private readonly channels: SoakChannel[],
  ) {
    this.topics = Array.from({ length: 12 }, () => topicName(this.random));
    for (const u of users) {
      this.auth.set(u.id, basicAuth(u));
      this.pending.set(u.id, new Set());
      this.early.set(u.id, new Set());
      this.received.set(u.id, []);
      this.sent.set(u.id, []);
    }
  }

  /** Registers each user's queue (the whole snapshot, as a client's start does) and opens its long poll. */
  async start(): Promise<void> {
    for (const u of this.users) {
      const body = await this.call(u, "POST", "/register", { apply_markdown: "true", client_gravatar: "true", slim_presence: "true" });
      if (body === null) throw new Error(`registering the queue of ${u.email} failed: ${this.counts.firstFailure}`);
      this.queues.set(u.id, { id: String(body.queue_id), lastEventId: Number(body.last_event_id) });
    }
    for (const u of this.users) void this.pollLoop(u);
  }

  /** Starts one request of the mix, unless too many are unanswered. */
  tick(): void {
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.counts.skipped += 1;
      return;
    }
    let r = this.random() * 100;
    let kind = MIX[0][0];
    for (const [k, w] of MIX) {
      if (r < w) {
        kind = k;
        break;
      }
      r -= w;
    }
    const user = this.users[Math.floor(this.random() * this.users.length)];
    this.inFlight += 1;
    const t0 = performance.now();
    void this.run(kind, user).then((ok) => {
      this.inFlight -= 1;
      const entry = this.counts.byKind.get(kind);
      if (!entry) return;
      if (ok) entry.ok += 1;
      else entry.failed += 1;
      entry.totalMs += performance.now() - t0;
    });
  }

  /** Messages stored whose event some recipient's queue has not had yet. */
  outstanding(): number {
    let n = 0;
    for (const set of this.pending.values()) n += set.size;
    return n;
  }

  /** Waits (up to `limitMs`) until every request is answered and every delivery arrived. */
  async drain(limitMs: number): Promise<void> {
    const deadline = performance.now() + limitMs;
    while (performance.now() < deadline && (this.inFlight > 0 || this.outstanding() > 0)) await new Promise((r) => setTimeout(r, 100));
  }

  /** Deliveries missing (never arrived) and unexpected (arrived for no stored send, or twice). */
  deliveryFaults(): { missing: number; unexpected: number } {
    let unexpected = 0;
    for (const set of this.early.values()) unexpected += set.size;
    return { missing: this.outstanding(), unexpected };
  }

  /** Stops the polls (each ends at its next answer; the server answers waiting polls at a heartbeat or on shutdown). */
  stop(): void {
    this.stopped = true;
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)];
  }

  private async run(kind: string, user: BenchUser): Promise<boolean> {
    const channel = this.pick(this.channels.filter((c) => c.members.some((m) => m.id === user.id)));
    const topic = this.pick(this.topics);
    switch (kind) {
      case "send to a channel": {
        const body = await this.call(user, "POST", "/messages", { type: "stream", to: String(channel.id), topic, content: sentence(this.random) });
        if (body) {
          this.stored(user, Number(body.id), channel.members);
          this.topicsUsed.set(channel.id, (this.topicsUsed.get(channel.id) ?? new Set()).add(topic));
        }
        return body !== null;
      }
      case "send a direct message": {
        const others = this.users.filter((u) => u.id !== user.id);
        const to = this.random() < 0.7 ? [this.pick(others)] : [this.pick(others), this.pick(others)];
        const recipients = [...new Map([user, ...to].map((u) => [u.id, u])).values()];
        const body = await this.call(user, "POST", "/messages", { type: "direct", to: JSON.stringify(recipients.filter((u) => u.id !== user.id).map((u) => u.id)), content: sentence(this.random) });
        if (body) this.stored(user, Number(body.id), recipients);
        return body !== null;
      }
      case "GET /messages": {
        const narrow = this.random() < 0.5 ? [] : [{ operator: "channel", operand: channel.id }];
        return (await this.call(user, "GET", "/messages", { anchor: "newest", num_before: "50", num_after: "0", narrow: JSON.stringify(narrow) })) !== null;
      }
      case "presence":
        return (await this.call(user, "POST", "/users/me/presence", { status: this.random() < 0.8 ? "active" : "idle", new_user_input: "true", slim_presence: "true" })) !== null;
      case "typing": {
        const op = this.random() < 0.5 ? "start" : "stop";
        const params: Record<string, string> = this.random() < 0.6 ? { type: "stream", stream_id: String(channel.id), topic, op } : { type: "direct", to: JSON.stringify([this.pick(this.users.filter((u) => u.id !== user.id)).id]), op };
        return (await this.call(user, "POST", "/typing", params)) !== null;
      }
      case "flags: mark read": {
        const ids = (this.received.get(user.id) ?? []).slice(-20);
        if (ids.length === 0) return (await this.call(user, "GET", "/users/me", {})) !== null;
        return (await this.call(user, "POST", "/messages/flags", { op: "add", flag: "read", messages: JSON.stringify(ids) })) !== null;
      }
      case "flags: star / unstar": {
        const ids = (this.received.get(user.id) ?? []).slice(-3);
        if (ids.length === 0) return (await this.call(user, "GET", "/users/me", {})) !== null;
        return (await this.call(user, "POST", "/messages/flags", { op: this.random() < 0.5 ? "add" : "remove", flag: "starred", messages: JSON.stringify(ids) })) !== null;
      }
      case "mark topic as read": {
        // A topic the channel has (an unknown one is refused).
        const used = this.topicsUsed.get(channel.id);
        if (!used || used.size === 0) return (await this.call(user, "GET", "/users/me", {})) !== null;
        return (await this.call(user, "POST", "/mark_topic_as_read", { stream_id: String(channel.id), topic_name: this.pick([...used]) })) !== null;
      }
      case "status":
        return (await this.call(user, "POST", "/users/me/status", { status_text: sentence(this.random).slice(0, 60) })) !== null;
      case "register (full) + DELETE /events": {
        const body = await this.call(user, "POST", "/register", { apply_markdown: "true", client_gravatar: "true", slim_presence: "true" });
        if (body === null) return false;
        return (await this.call(user, "DELETE", "/events", { queue_id: String(body.queue_id) })) !== null;
      }
      case "edit a message": {
        const id = (this.sent.get(user.id) ?? []).at(-1);
        if (id === undefined) return (await this.call(user, "GET", "/users/me", {})) !== null;
        return (await this.call(user, "PATCH", `/messages/${id}`, { content: `${sentence(this.random)} (edited)` })) !== null;
      }
      case "GET /users/me/subscriptions":
        return (await this.call(user, "GET", "/users/me/subscriptions", {})) !== null;
      default:
        return (await this.call(user, "GET", "/users/me", {})) !== null;
    }
  }

  /** A send's answer: its message is now owed to each recipient's queue (unless it came first). */
  private stored(sender: BenchUser, id: number, recipients: BenchUser[]): void {
    this.counts.messagesSent += 1;
    remember(this.sent.get(sender.id), id);
    for (const r of recipients) {
      this.counts.deliveriesExpected += 1;
      const early = this.early.get(r.id);
      if (early?.delete(id)) continue;
      this.pending.get(r.id)?.add(id);
    }
  }

  private delivered(user: BenchUser, id: number): void {
    this.counts.deliveriesSeen += 1;
    remember(this.received.get(user.id), id);
    if (this.pending.get(user.id)?.delete(id)) return;
    this.early.get(user.id)?.add(id);
  }

  private queueFailure(message: string): void {
    this.counts.queueFailures += 1;
    this.counts.firstQueueFailure ??= message;
  }

  private async pollLoop(user: BenchUser): Promise<void> {
    const queue = this.queues.get(user.id);
    if (!queue) return;
    while (!this.stopped) {
      const query = new URLSearchParams({ queue_id: queue.id, last_event_id: String(queue.lastEventId) });
      let events: { id: number; type: string; message?: { id: number } }[];
      try {
        const res = await fetch(`${this.url}/api/v1/events?${query}`, { headers: { authorization: this.auth.get(user.id) ?? "" }, signal: AbortSignal.timeout(POLL_TIMEOUT_MS) });
        const body = (await res.json()) as { result: string; msg?: string; events?: typeof events };
        if (!res.ok || body.result !== "success") {
          this.queueFailure(`GET /events of ${user.email}: HTTP ${res.status} ${body.msg ?? ""}`);
          if (res.status >= 500) this.counts.serverErrors += 1;
          return;
        }
        events = body.events ?? [];
      } catch (err) {
        if (this.stopped) return;
        // A poll that failed on the way (a reset connection, a timeout) is asked again, as a
        // client does, from the same event: the queue's events must all still be there.
        this.counts.pollRetries += 1;
        this.counts.firstPollRetry ??= `GET /events of ${user.email}: ${describe(err)}`;
        continue;
      }
      for (const event of events) {
        if (event.id !== queue.lastEventId + 1) this.queueFailure(`queue of ${user.email}: event ${event.id} after ${queue.lastEventId}`);
        queue.lastEventId = event.id;
        if (event.type === "message" && event.message) this.delivered(user, event.message.id);
      }
    }
  }

  /** One API call; the parsed success body, or null (counted) on any failure. */
  private async call(user: BenchUser, method: "GET" | "POST" | "PATCH" | "DELETE", path: string, params: Record<string, string>): Promise<Record<string, unknown> | null> {
    const query = new URLSearchParams(params).toString();
    const init: RequestInit = { method, headers: { authorization: this.auth.get(user.id) ?? "", "user-agent": "ParleyBench/1.0" }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) };
    let target = `${this.url}/api/v1${path}`;
    if (method === "GET" || method === "DELETE") target += `?${query}`;
    else init.body = new URLSearchParams(params);
    try {
      const res = await fetch(target, init);
      const text = await res.text();
      const body = JSON.parse(text) as Record<string, unknown>;
      if (res.ok && body.result === "success") return body;
      if (res.status >= 500) this.counts.serverErrors += 1;
      else this.counts.otherFailures += 1;
      this.counts.firstFailure ??= `${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`;
    } catch (err) {
      this.counts.otherFailures += 1;
      this.counts.firstFailure ??= `${method} ${path}: ${describe(err)}`;
    }
    return null;
  }
}

/** Keeps the newest 50 ids of a list. */
function remember(list: number[] | undefined, id: number): void {
  if (!list) return;
  list.push(id);
  if (list.length > 50) list.splice(0, list.length - 50);
}

/** An error with its cause (fetch's "fetch failed" carries the socket's error there). */
function describe(err: unknown): string {
  const cause = err instanceof Error && err.cause !== undefined ? ` (cause: ${String(err.cause)})` : "";
  return `${String(err)}${cause}`;
}
