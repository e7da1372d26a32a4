/**
 * Requests to addresses the server's users choose (an outgoing-webhook bot's URL). Upstream sends
 * them through Smokescreen, a proxy that refuses every non-public address, so a member's bot
 * cannot make the server POST to 127.0.0.1, the private network or a cloud metadata address and
 * read the answer back. Parley checks them itself; or, with OUTGOING_HTTP_PROXY, sends them
 * through such a proxy, which then decides (its 407 is a refusal, as upstream reads it).
 *
 * Checked here, a request may connect only to a public unicast address, or to a destination the
 * operator allows (OUTGOING_HTTP_ALLOW: their own bot server on this machine or network). The
 * check is made where the connection is: an address written in the URL before connecting (the
 * socket does not look it up), a name in the `lookup` the socket resolves it with, which passes on
 * only the addresses the check lets through. So what is checked is what is connected to: a name
 * cannot pass as public and then connect to 127.0.0.1 (DNS rebinding). Redirects are followed
 * here, each hop a request of its own, checked the same way.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import ipaddr from "ipaddr.js";
import type { OutgoingAllowEntry } from "./config.ts";
import { DisallowedAddressError } from "./errors.ts";

/** What outgoing requests take from the configuration. */
export type OutgoingHttpSettings = { outgoingHttpAllow: readonly OutgoingAllowEntry[]; outgoingHttpProxy: string | null };

/** A request's first hop, and how much of the final answer is read. */
export type OutgoingRequest = { method: string; headers: Record<string, string>; body: string | null; signal: AbortSignal; maxBytes: number };

/** The final answer, after redirects: its status and up to maxBytes of its body. */
export type OutgoingAnswer = { status: number; text: string };

/** The status an outgoing proxy (Smokescreen) refuses a destination with; upstream reads it so from any server. */
export const PROXY_REFUSED_STATUS = 407;

/** Redirects followed before giving up: the fetch standard's 20, as before this module. */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** IPv6 global unicast (2000::/3): every other IPv6 block is loopback, local, mapped or otherwise special. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Whether an address is public: IPv4 outside every special range ipaddr.js knows (loopback,
 * private, link-local and so the metadata address 169.254.169.254, carrier-grade NAT, multicast,
 * broadcast, unspecified, reserved), IPv6 in 2000::/3 and outside its special ranges (NAT64,
 * 6to4, Teredo, documentation); an IPv4-mapped IPv6 address is judged as its IPv4 address.
 */
function isPublic(address: Address): boolean {
  if (address instanceof ipaddr.IPv4) return address.range() === "unicast";
  return address.range() === "unicast" && address.match(GLOBAL_UNICAST_V6);
}

function inRange(address: Address, cidr: string): boolean {
  const [base, bits] = ipaddr.parseCIDR(cidr);
  return base.kind() === address.kind() && address.match(base, bits);
}

/**
 * Whether a request may connect to `address` on `port`, reached through the URL's host `name`
 * (null: the URL holds the address itself): a public address, or an operator's allowed one.
 */
export function mayConnect(allow: readonly OutgoingAllowEntry[], address: string, port: number, name: string | null): boolean {
  if (net.isIP(address) === 0) return false;
  const parsed = ipaddr.process(address);
  if (isPublic(parsed)) return true;
  return allow.some((entry) => (entry.port === null || entry.port === port) && (entry.name !== null ? entry.name === name : inRange(parsed, entry.cidr)));
}

/** The port a URL's request connects to. */
function portOf(url: URL): number {
  return Number(url.port || (url.protocol === "https:" ? 443 : 80));
}

/** A URL's host as sockets take it: an IPv6 address without its brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** The sockets' `lookup` for a request to `port`: resolves as usual and passes on only the addresses that may be connected to; none refuses the request. */
function checkedLookup(allow: readonly OutgoingAllowEntry[], port: number): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const name = hostname.toLowerCase().replace(/\.$/, "");
      const kept = addresses.filter((a) => mayConnect(allow, a.address, port, name));
      if (kept.length === 0) return callback(new DisallowedAddressError(hostname), []);
      if (options.all) return callback(null, kept);
      callback(null, kept[0].address, kept[0].family);
    });
  };
}

type Hop = { url: URL; method: string; headers: Record<string, string>; body: string | null };

/** One hop straight to its destination, checked; a fresh connection each (its lookup is this hop's). */
function directRequest(allow: readonly OutgoingAllowEntry[], hop: Hop, signal: AbortSignal): http.ClientRequest {
  const host = bareHost(hop.url);
  const port = portOf(hop.url);
  // A socket connects to an address without looking it up: it is checked here, before any connection.
  if (net.isIP(host) !== 0 && !mayConnect(allow, host, port, null)) throw new DisallowedAddressError(host);
  const lib = hop.url.protocol === "https:" ? https : http;
  return lib.request(hop.url, { method: hop.method, headers: hop.headers, signal, agent: false, lookup: checkedLookup(allow, port) });
}

function proxyHeaders(proxy: URL): Record<string, string> {
  if (proxy.username === "") return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { "proxy-authorization": `Basic ${Buffer.from(credentials).toString("base64")}` };
}

/** A CONNECT tunnel through the proxy to `target`'s host and port; the proxy's 407 is a refusal. */
function tunnel(proxy: URL, target: URL, signal: AbortSignal): Promise<Duplex> {
  const authority = `${target.hostname}:${portOf(target)}`;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: bareHost(proxy), port: portOf(proxy), method: "CONNECT", path: authority, headers: { host: authority, ...proxyHeaders(proxy) }, signal, agent: false });
    req.once("connect", (res: http.IncomingMessage, socket: Duplex) => {
      if (res.statusCode === 200) {
        // Its errors reach the TLS socket over it, and so the request; unheard here, they would end the process.
        socket.on("error", () => {});
        return resolve(socket);
      }
      socket.destroy();
      reject(res.statusCode === PROXY_REFUSED_STATUS ? new DisallowedAddressError(target.hostname) : new Error(`the proxy answered CONNECT with ${res.statusCode}`));
    });
    req.on("error", reject);
    req.end();
  });
}

/** One hop through the proxy: a plain request in absolute form, or TLS inside a CONNECT tunnel. The proxy resolves the name. */
async function proxiedRequest(proxy: URL, hop: Hop, signal: AbortSignal): Promise<http.ClientRequest> {
  if (hop.url.protocol === "http:") {
    const headers = { ...hop.headers, host: hop.url.host, ...proxyHeaders(proxy) };
    return http.request({ host: bareHost(proxy), port: portOf(proxy), method: hop.method, path: hop.url.href, headers, signal, agent: false });
  }
  const socket = await tunnel(proxy, hop.url, signal);
  const host = bareHost(hop.url);
  const servername = net.isIP(host) === 0 ? host : undefined;
  // No agent: the request takes the tunnel's TLS socket from createConnection (and, without an agent's default port, its Host from here).
  const headers = { ...hop.headers, host: hop.url.host };
  return https.request(hop.url, { method: hop.method, headers, signal, createConnection: () => tls.connect({ socket, servername }) });
}

/** Sends a hop's body and waits for the head of its answer. */
function exchange(req: http.ClientRequest, body: string | null): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    req.once("response", resolve);
    // Kept after the answer came: a later error (the timeout, mid-body) must not go unheard.
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

/** Up to maxBytes of an answer's body; the rest is dropped unread. */
function readBody(res: http.IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8"));
    res.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) {
        res.destroy();
        done();
      }
    });
    res.once("end", done);
    res.on("error", reject);
    res.once("close", () => reject(new Error("the answer was cut short")));
  });
}

/** The request a redirect asks for: 303, and 301 or 302 after a POST, become a GET without a body (as browsers and upstream's requests do); 307 and 308 repeat the request. */
function nextHop(hop: Hop, status: number, url: URL): Hop {
  if (status === 303 || ((status === 301 || status === 302) && hop.method === "POST")) {
    const headers = Object.fromEntries(Object.entries(hop.headers).filter(([name]) => name.toLowerCase() !== "content-type"));
    return { url, method: "GET", headers, body: null };
  }
  return { ...hop, url };
}

/**
 * Sends a request to `url` and reads its answer, following redirects; every hop is checked (or
 * goes through the proxy). Throws DisallowedAddressError when a hop is refused, before anything
 * of that destination's answer is read; any other error means it could not be reached.
 */
export async function outgoingRequest(settings: OutgoingHttpSettings, url: string, request: OutgoingRequest): Promise<OutgoingAnswer> {
  const proxy = settings.outgoingHttpProxy === null ? null : new URL(settings.outgoingHttpProxy);
  let hop: Hop = { url: new URL(url), method: request.method, headers: request.headers, body: request.body };
  for (let redirects = 0; ; redirects++) {
    if (hop.url.protocol !== "http:" && hop.url.protocol !== "https:") throw new Error(`cannot request a ${hop.url.protocol} URL`);
    const sent = hop.body === null ? hop : { ...hop, headers: { ...hop.headers, "content-length": String(Buffer.byteLength(hop.body)) } };
    const req = proxy === null ? directRequest(settings.outgoingHttpAllow, sent, request.signal) : await proxiedRequest(proxy, sent, request.signal);
    const res = await exchange(req, hop.body);
    const status = res.statusCode ?? 0;
    if (proxy !== null && status === PROXY_REFUSED_STATUS) {
      res.destroy();
      throw new DisallowedAddressError(hop.url.hostname);
    }
    const location = res.headers.location;
    if (!REDIRECT_STATUSES.has(status) || location === undefined) return { status, text: await readBody(res, request.maxBytes) };
    res.destroy();
    if (redirects >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    hop = nextHop(hop, status, new URL(location, hop.url));
  }
}
