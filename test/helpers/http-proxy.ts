/**
 * A stand-in for the outgoing HTTP proxy an operator puts in front of Parley (upstream runs
 * Smokescreen): a real HTTP proxy server that takes plain requests in absolute form and CONNECT
 * tunnels, records every target it is asked for, and answers as Smokescreen does for a target
 * its rules refuse: 407, with a body that names what it refused. Requests for the one host it lets
 * through are passed to fixed upstreams (a test's bot servers), whatever that host resolves to.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";

/** The body of a refusal; a test checks that none of it reaches a bot's owner. */
export const PROXY_REFUSAL_BODY = "proxy refused: destination 127.0.0.1 denied by rule 'private range'";

export class HttpProxy {
  private readonly server = http.createServer((req, res) => this.forward(req, res));
  /** Every target asked for: the absolute URL of a plain request, `host:port` of a CONNECT. */
  readonly targets: string[] = [];
  private readonly tunnels = new Set<Duplex>();
  /** The Proxy-Authorization header of each request (null: none), in the order of `targets`. */
  readonly credentials: Array<string | null> = [];
  url = "";

  /**
   * Plain requests for `allowedHost` are passed on to `upstream` (http://127.0.0.1:PORT), a CONNECT
   * to `allowedHost`:443 is tunnelled to 127.0.0.1:`tlsUpstreamPort`; every other target is refused.
   */
  constructor(
    private readonly allowedHost: string,
    private readonly upstream: string,
    private readonly tlsUpstreamPort: number,
  ) {
    this.server.on("connect", (req: http.IncomingMessage, socket: Duplex) => this.tunnel(req, socket));
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    // A tunnel's sockets left the HTTP server's hands at CONNECT: closeAllConnections does not see them.
    for (const socket of this.tunnels) socket.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private record(req: http.IncomingMessage): void {
    this.targets.push(req.url ?? "");
    this.credentials.push(req.headers["proxy-authorization"] ?? null);
  }

  private tunnel(req: http.IncomingMessage, socket: Duplex): void {
    this.record(req);
    if (req.url !== `${this.allowedHost}:443`) {
      socket.end(`HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: ${Buffer.byteLength(PROXY_REFUSAL_BODY)}\r\n\r\n${PROXY_REFUSAL_BODY}`);
      return;
    }
    this.tunnels.add(socket);
    socket.once("close", () => this.tunnels.delete(socket));
    const out = net.connect(this.tlsUpstreamPort, "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      out.pipe(socket);
      socket.pipe(out);
    });
    out.on("error", () => socket.destroy());
    out.on("close", () => socket.destroy());
    socket.on("error", () => out.destroy());
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const target = req.url ?? "";
    this.record(req);
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (url.host !== this.allowedHost) {
      res.writeHead(407, { "content-type": "text/plain" }).end(PROXY_REFUSAL_BODY);
      return;
    }
    const { "proxy-authorization": _credentials, ...headers } = { ...req.headers, host: new URL(this.upstream).host };
    const out = http.request(new URL(url.pathname + url.search, this.upstream), { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.writeHead(502).end());
    req.pipe(out);
  }
}
