/**
 * The browser app (web/), served by the API's own process: `/` answers index.html (never
 * cached, so a new build is picked up at once) and the content-hashed bundle lives under
 * `/static/webapp/` (cached for a year), each in brotli or gzip when the browser takes it. Any
 * other GET for a page (Accept: text/html, outside the API and file paths) also answers
 * index.html, so links into the app work; the app itself routes by the URL hash.
 *
 * The bundle is built (or read from its cache) once, when the routes are registered; requests
 * only wait for that to finish (web-bundle.ts).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { JsonableError } from "../../errors.ts";
import type { RawRoutes } from "../endpoint.ts";
import { MAX_PATH_PARAM_CHARS, pathSegmentTooLong } from "../params.ts";
import { acceptedEncoding } from "../compression.ts";
import { loadWebBundle, STATIC_PREFIX, type WebBundle, type WebFile } from "../web-bundle.ts";

/** Hashed file names never change content: cache them for a year. */
const IMMUTABLE_SECONDS = 365 * 24 * 60 * 60;

/** Paths that are never app pages: an unknown one there is the API's 404, not index.html. */
const NON_PAGE_PREFIXES = ["/api/", "/json/", "/static/", "/user_uploads/", "/user_avatars/", "/__test/"];

/**
 * The page's policy: scripts and styles from this site only (message HTML may carry inline
 * styles, e.g. rendered TeX), images from here or data: URLs, no framing.
 */
const INDEX_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function sendFile(req: FastifyRequest, reply: FastifyReply, file: WebFile, cacheControl: string): FastifyReply {
  const encoding = acceptedEncoding(req.headers["accept-encoding"], file.br !== null);
  const body = encoding === "br" && file.br ? file.br : encoding === "gzip" ? file.gzip : file.raw;
  reply.headers({ "content-type": file.contentType, "cache-control": cacheControl, vary: "accept-encoding", "x-content-type-options": "nosniff" });
  if (encoding) reply.header("content-encoding", encoding);
  return reply.send(body);
}

function sendIndex(req: FastifyRequest, reply: FastifyReply, bundle: WebBundle): FastifyReply {
  reply.headers({ "content-security-policy": INDEX_CSP, "x-frame-options": "DENY", "referrer-policy": "same-origin" });
  return sendFile(req, reply, bundle.index, "no-cache");
}

function notFound(): JsonableError {
  return new JsonableError("Endpoint does not exist", { code: "NOT_FOUND", status: 404 });
}

/** Registers `/`, the static bundle and the page fallback. */
export const registerRoutes: RawRoutes = (app) => {
  const bundle = loadWebBundle();
  // Requests see a failed build as their error; this keeps the rejection from going unhandled.
  bundle.catch(() => undefined);
  app.get("/", async (req, reply) => sendIndex(req, reply, await bundle));
  app.get(`${STATIC_PREFIX}:file`, async (req, reply) => {
    const name = typeof req.params === "object" && req.params !== null && "file" in req.params ? String(req.params.file) : "";
    const file = (await bundle).files.get(name);
    if (!file) throw notFound();
    return sendFile(req, reply, file, `public, max-age=${IMMUTABLE_SECONDS}, immutable`);
  });
  app.get("/*", async (req, reply) => {
    const pathname = req.url.split("?", 1)[0];
    const page = String(req.headers.accept ?? "").includes("text/html") && !NON_PAGE_PREFIXES.some((p) => pathname.startsWith(p));
    // The router sends a route's over-long parameter here rather than failing: the same 414.
    if (pathname.split("/").some((segment) => segment.length > MAX_PATH_PARAM_CHARS)) throw pathSegmentTooLong();
    if (!page) throw notFound();
    return sendIndex(req, reply, await bundle);
  });
};
