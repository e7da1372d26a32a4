/**
 * GET /static/images/unknown-user-avatar.png: the avatar_url of users the viewer may not access
 * ("Unknown user" in messages and user lists of guests outside can_access_all_users_group). A
 * public static image, as Zulip serves it, so that clients can load it without credentials.
 */
import { unknownUserAvatarPng } from "../../files/placeholder-avatar.ts";
import type { RawRoutes } from "../endpoint.ts";

/** The image's path; present/users.ts names it in avatar URLs. */
const UNKNOWN_USER_AVATAR_PATH = "/static/images/unknown-user-avatar.png";

/** Clients may reuse a copy for a day (it changes only on upgrade). */
const CACHE_SECONDS = 24 * 60 * 60;

/** Registers the static image routes on the app. */
export const registerRoutes: RawRoutes = (app) => {
  app.get(UNKNOWN_USER_AVATAR_PATH, async (_req, reply) => {
    reply.headers({ "cache-control": `public, max-age=${CACHE_SECONDS}`, "access-control-allow-origin": "*", "x-content-type-options": "nosniff" });
    return reply.type("image/png").send(unknownUserAvatarPng());
  });
};
