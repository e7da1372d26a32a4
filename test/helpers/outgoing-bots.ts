/**
 * Outgoing-webhook bots in API tests: a stand-in bot server (a real HTTP server playing the
 * bot's service) and a harness that creates bots owned by the admin and follows the admin's
 * queue for what the bots post.
 */
import assert from "node:assert/strict";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { expectSuccess } from "./client.ts";
import { countRows } from "./db.ts";
import { getEvents, registerQueue, type Queue } from "./events.ts";
import type { TestServer } from "./server.ts";

/** What the bot server answers: a status, headers and a body, after an optional wait. */
export type Answer = { status: number; body: string; headers?: Record<string, string>; wait?: Promise<void> };
/** One request the bot server got (`body` is null when it had none, as a GET after a redirect). */
export type Received = { method: string; path: string; headers: http.IncomingHttpHeaders; body: Record<string, any> | null };

/**
 * The stand-in bot server: each path is one bot, answering from its own script of answers (the
 * last one repeats); every request is recorded, and a test can await the n-th request of a path.
 */
export class BotServer {
  private readonly server: http.Server;
  private readonly scripts = new Map<string, Answer[]>();
  private readonly received = new Map<string, Received[]>();
  private readonly waiters: Array<{ path: string; count: number; resolve: () => void }> = [];
  url = "";
  port = 0;

  /** With `tls` (a key and certificate), it answers HTTPS. */
  constructor(private readonly tls?: { key: string; cert: string }) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    this.server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `${this.tls ? "https" : "http"}://127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Sets what a path answers, in order. */
  script(path: string, answers: Answer[]): void {
    this.scripts.set(path, answers);
  }

  requests(path: string): Received[] {
    return this.received.get(path) ?? [];
  }

  /** Every request it got, on any path. */
  allRequests(): Received[] {
    return [...this.received.values()].flat();
  }

  /** Resolves once `path` has received `count` requests. */
  waitFor(path: string, count: number): Promise<Received[]> {
    if (this.requests(path).length >= count) return Promise.resolve(this.requests(path));
    return new Promise((resolve) => this.waiters.push({ path, count, resolve: () => resolve(this.requests(path)) }));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? "";
    const text = Buffer.concat(chunks).toString("utf8");
    const list = this.received.get(path) ?? [];
    list.push({ method: req.method ?? "", path, headers: req.headers, body: text === "" ? null : JSON.parse(text) });
    this.received.set(path, list);
    for (const w of this.waiters.filter((x) => x.path === path && list.length >= x.count)) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve();
    }
    const script = this.scripts.get(path) ?? [{ status: 200, body: "" }];
    const answer = script[Math.min(list.length - 1, script.length - 1)];
    if (answer.wait) await answer.wait;
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(answer.body);
  }
}

export type Bot = { id: number; email: string; fullName: string; token: string; path: string };
export type Message = Record<string, any>;

/**
 * Bots owned by the server's admin, and the admin's queue (bot answers in channels and direct
 * messages, and the bots' notices to their owner). Call start() in the suite's `before`.
 */
export class BotHarness {
  private ownerQueue!: Queue;
  private readonly seen: Message[] = [];
  private botCount = 0;

  constructor(
    private readonly server: TestServer,
    private readonly bots: BotServer,
  ) {}

  /** Subscribes the admin and the member to general and registers the admin's queue. */
  async start(): Promise<void> {
    const { admin, member } = this.server.fixtures;
    expectSuccess(await this.server.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [admin.id, member.id] }));
    this.ownerQueue = await registerQueue(this.server.api, admin, { event_types: ["message"], apply_markdown: false });
  }

  /** Creates an outgoing-webhook bot owned by the admin, answering at its own path of the bot server (or at `url`), subscribed to general. */
  async createBot(name: string, url?: string): Promise<Bot> {
    const { admin } = this.server.fixtures;
    const api = this.server.api;
    const path = `/bot/${++this.botCount}`;
    const payloadUrl = url ?? `${this.bots.url}${path}`;
    const created = expectSuccess(
      await api.post(admin, "/bots", { full_name: name, short_name: `hook${this.botCount}`, bot_type: 3, payload_url: JSON.stringify(payloadUrl), interface_type: 1 }),
    );
    const user = expectSuccess(await api.get(admin, `/users/${created.user_id}`)).user;
    expectSuccess(await api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [created.user_id] }));
    const state = (await registerQueue(api, admin, { fetch_event_types: ["realm_bot"] })).state;
    const row = (state.realm_bots as Array<{ user_id: number; services: Array<{ token: string }> }>).find((b) => b.user_id === created.user_id);
    assert.ok(row);
    return { id: created.user_id, email: user.email, fullName: name, token: row.services[0].token, path };
  }

  /** Waits (long-polling the owner's queue) for a message matching `match`. */
  async waitForMessage(match: (m: Message) => boolean): Promise<Message> {
    for (;;) {
      const found = this.seen.find(match);
      if (found) return found;
      const q = this.ownerQueue;
      const body = expectSuccess(await getEvents(this.server.api, q.user, { queue_id: q.queueId, last_event_id: q.lastEventId }));
      for (const event of body.events as Array<{ id: number; type: string; message?: Message }>) {
        q.lastEventId = event.id;
        if (event.type === "message" && event.message) this.seen.push(event.message);
      }
    }
  }

  /** Every message the owner's queue has shown so far. */
  messagesSeen(): readonly Message[] {
    return this.seen;
  }

  /** Waits until every job is handled (deleted); the worker writes them off the request path. */
  async jobsDone(): Promise<void> {
    for (let i = 0; i < 250; i++) {
      if ((await countRows(this.server, ["outgoing_webhook_jobs"])).outgoing_webhook_jobs === 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail("outgoing webhook jobs still pending");
  }
}

/** The bot's own direct message to the admin (the bots' owner) that names it, as Zulip's notify_bot_owner sends it. */
export const ownerNotice = (bot: Bot) => (m: Message) => m.type === "private" && m.sender_id === bot.id && String(m.content).includes(`@_**${bot.fullName}**`);

/** A mention of the bot that triggers it. */
export const mention = (bot: Bot) => `@**${bot.fullName}|${bot.id}**`;
