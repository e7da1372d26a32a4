/**
 * A light HTTP/1.1 client for the load generator (load.ts) and the fan-out scenario: one
 * keep-alive socket per connection, one request at a time, requests pre-encoded as bytes. Ten thousand of them hold ten thousand long
 * polls in one process; `http.request` would cost the client more CPU per answer than the bare
 * server spends on it, and the timed part of the scenario is the client reading answers.
 */
import net from "node:net";

/** One answer: status, body text, and when its last byte arrived (performance.now()). */
export type RawAnswer = { status: number; body: string; at: number };

/** A request to send, encoded once. */
export function encodeRequest(base: URL, method: string, path: string, headers: Record<string, string>, body?: string): Buffer {
  const payload = body === undefined ? null : Buffer.from(body);
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${base.host}`, "connection: keep-alive"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (payload) lines.push(`content-length: ${payload.length}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`);
  return payload ? Buffer.concat([head, payload]) : head;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const CHUNKED_END = Buffer.from("0\r\n\r\n");

/** One keep-alive connection to 127.0.0.1; `request` may be called again once the previous answer came. */
export class RawConnection {
  private socket: net.Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve: (a: RawAnswer) => void; reject: (e: Error) => void } | null = null;

  /** `timeoutMs`: a request unanswered for that long fails (and closes the socket), so a stuck server cannot hang a run. */
  constructor(
    private readonly base: URL,
    private readonly opts: { timeoutMs?: number } = {},
  ) {
    if (base.hostname !== "127.0.0.1") throw new Error(`the benchmark targets 127.0.0.1 only, not ${base.hostname}`);
  }

  /** Opens the socket now (rather than at the first request); resolves once connected. */
  connect(): Promise<void> {
    if (this.socket) return Promise.resolve();
    const socket = this.open();
    return new Promise((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("error", reject);
    });
  }

  private open(): net.Socket {
    const socket = net.connect({ host: this.base.hostname, port: Number(this.base.port), noDelay: true });
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    const fail = (err: Error) => {
      // A socket closed after its last answer (`connection: close`) may close once the next request went out on a new one.
      if (this.socket !== socket) return;
      this.socket = null;
      this.buffer = Buffer.alloc(0);
      const pending = this.pending;
      this.pending = null;
      pending?.reject(err);
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("connection closed")));
    const timeoutMs = this.opts.timeoutMs;
    if (timeoutMs !== undefined) socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    return socket;
  }

  /** Sends a request and resolves with its answer; one at a time per connection. */
  request(bytes: Buffer): Promise<RawAnswer> {
    if (this.pending) return Promise.reject(new Error("a request is already waiting on this connection"));
    const socket = this.socket ?? this.open();
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      socket.write(bytes);
    });
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const headerEnd = this.buffer.indexOf(HEADER_END);
    if (headerEnd < 0 || !this.pending) return;
    const head = this.buffer.subarray(0, headerEnd).toString("latin1").toLowerCase();
    const bodyStart = headerEnd + HEADER_END.length;
    const length = /\r\ncontent-length: *(\d+)/.exec(head);
    let bodyEnd: number;
    if (length) {
      bodyEnd = bodyStart + Number(length[1]);
      if (this.buffer.length < bodyEnd) return;
    } else if (head.includes("\r\ntransfer-encoding: chunked")) {
      if (!this.buffer.subarray(this.buffer.length - CHUNKED_END.length).equals(CHUNKED_END)) return;
      bodyEnd = this.buffer.length;
    } else {
      bodyEnd = bodyStart;
    }
    const at = performance.now();
    const status = Number(head.slice(9, 12));
    const body = this.buffer.subarray(bodyStart, bodyEnd).toString();
    this.buffer = this.buffer.subarray(bodyEnd);
    const pending = this.pending;
    this.pending = null;
    if (head.includes("\r\nconnection: close")) this.close();
    pending.resolve({ status, body, at });
  }

  /** Closes the socket; a waiting request fails. */
  close(): void {
    const pending = this.pending;
    this.pending = null;
    this.socket?.destroy();
    this.socket = null;
    this.buffer = Buffer.alloc(0);
    pending?.reject(new Error("connection closed"));
  }
}
