/**
 * GET /static/generated/emoji/emoji_api.json, the `server_emoji_data_url` of the register
 * snapshot (FL 140): the unicode emoji names for clients' pickers and autocomplete. A public
 * static document as Zulip serves it (no authentication, any origin), cacheable and revalidated
 * by entity tag.
 */
import { serverEmojiData } from "../../actions/emoji/server-data.ts";
import type { RawRoutes } from "../endpoint.ts";

/** The document's path; register/realm.ts announces it. */
const EMOJI_DATA_PATH = "/static/generated/emoji/emoji_api.json";

/** Clients may reuse a copy for a day; after that they revalidate it (it changes only on upgrade). */
const CACHE_SECONDS = 24 * 60 * 60;

/** Whether an If-None-Match header names the current entity tag (or is `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}

/** Registers the emoji data route on the app. */
export const registerRoutes: RawRoutes = (app) => {
  app.get(EMOJI_DATA_PATH, async (req, reply) => {
    const { body, etag } = serverEmojiData();
    reply.headers({
      etag,
      "cache-control": `public, max-age=${CACHE_SECONDS}`,
      "access-control-allow-origin": "*",
      "x-content-type-options": "nosniff",
    });
    if (matches(req.headers["if-none-match"], etag)) return reply.status(304).send();
    return reply.type("application/json").send(body);
  });
};
