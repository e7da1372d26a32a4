/**
 * Compressed answers. A JSON answer of at least `COMPRESS_MIN_BYTES` goes out in brotli or gzip
 * when the request accepts it (a full POST /register shrinks about six times); smaller ones go
 * as they are, with no work added. Compression runs on libuv's thread pool, at the fast settings
 * that suit answers made per request (brotli quality 4, gzip level 4: about a millisecond for a
 * 30 KB register); the web app's files are compressed once, harder, when built (web-bundle.ts).
 */
import zlib from "node:zlib";
import { promisify } from "node:util";
import type { FastifyReply, FastifyRequest } from "fastify";

export type Encoding = "br" | "gzip";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** The best of brotli (where `brAvailable`) and gzip that an Accept-Encoding header takes, or null. */
export function acceptedEncoding(header: string | string[] | undefined, brAvailable = true): Encoding | null {
  const accepted = new Map<string, number>();
  for (const part of String(header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  if (brAvailable && ok("br")) return "br";
  if (ok("gzip")) return "gzip";
  return null;
}

/** `body` compressed for an answer made per request. */
export function compressAnswer(body: string | Buffer, encoding: Encoding): Promise<Buffer> {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  if (encoding === "gzip") return gzip(bytes, { level: 4 });
  return brotli(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
}

/**
 * The onSend hook that compresses JSON answers sent through Fastify (errors, the /json routes,
 * answers of routes that build their own). Other answers (files, the web app's precompressed
 * files, anything already encoded) pass through.
 */
export function compressJsonAnswers(minBytes: number) {
  return async (req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return payload;
    if (Buffer.byteLength(payload) < minBytes || reply.hasHeader("content-encoding")) return payload;
    if (!String(reply.getHeader("content-type") ?? "").startsWith("application/json")) return payload;
    reply.header("vary", "accept-encoding");
    const encoding = acceptedEncoding(req.headers["accept-encoding"]);
    if (!encoding) return payload;
    const compressed = await compressAnswer(payload, encoding);
    reply.header("content-encoding", encoding);
    reply.removeHeader("content-length");
    return compressed;
  };
}
