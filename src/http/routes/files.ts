/**
 * Routes that answer with file bytes rather than the JSON envelope, outside /api/v1 as Zulip has
 * them: `/user_uploads/{realm_id}/{...}` (the browser's session cookie, or HTTP Basic auth, as
 * Zulip accepts API credentials there), upstream's `/user_uploads/thumbnail/{path_id}/{size}`
 * (the image itself: Parley keeps no thumbnails), `/user_uploads/temporary/{token}/{name}` (the signed URL
 * is the credential), and the public images under `/user_avatars/{realm_id}/`: uploaded avatars
 * and custom emoji (`emoji/images/`). Errors use the envelope through the app's error handler.
 */
import type { FastifyReply } from "fastify";
import { readEmojiImage } from "../../actions/emoji/realm-emoji.ts";
import { readAvatarImage } from "../../actions/users/avatars.ts";
import { FileNotFoundError } from "../../errors.ts";
import { readThumbnailForUser, readUploadByToken, readUploadForUser, type ServedFile } from "../../actions/attachments/uploads.ts";
import { authenticate } from "../auth.ts";
import type { RawRoutes } from "../endpoint.ts";
import { IMAGE_CSP, servingHeaders } from "../../files/names.ts";

/** Custom emoji change rarely and their file names are never reused (`<id>.<ext>`). */
const EMOJI_CACHE_SECONDS = 7 * 24 * 60 * 60;
/** Avatar URLs change with the avatar's version. */
const AVATAR_CACHE_SECONDS = 24 * 60 * 60;

function sendFile(reply: FastifyReply, file: ServedFile): FastifyReply {
  return reply.headers(servingHeaders(file.fileName, file.contentType)).send(file.data);
}

/** A public image (an avatar, a custom emoji) under Zulip's image policy, or the envelope's 404. */
function sendPublicImage(reply: FastifyReply, image: { data: Buffer; contentType: string } | null, cacheSeconds: number): FastifyReply {
  if (image === null) throw new FileNotFoundError();
  return reply
    .headers({
      "content-type": image.contentType,
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "content-security-policy": IMAGE_CSP,
      "cache-control": `public, max-age=${cacheSeconds}`,
    })
    .send(image.data);
}

function stringParam(params: unknown, key: string): string {
  const value: unknown = params !== null && typeof params === "object" ? Object.getOwnPropertyDescriptor(params, key)?.value : undefined;
  return typeof value === "string" ? value : "";
}

/** Registers the file-serving routes on the app. */
export const registerRoutes: RawRoutes = (app, deps, host) => {
  const { store, config, clock } = deps;
  app.get("/user_uploads/temporary/:token/:filename", async (req, reply) =>
    sendFile(reply, await readUploadByToken(store.reader, config, stringParam(req.params, "token"), clock.nowMs())),
  );
  app.get("/user_uploads/thumbnail/*", async (req, reply) => {
    const { user, realm } = await authenticate(req, { db: store.reader, host, clock }, "either");
    return sendFile(reply, await readThumbnailForUser(store.reader, config, realm, user, stringParam(req.params, "*")));
  });
  app.get("/user_uploads/:realm_id_str/*", async (req, reply) => {
    const { user, realm } = await authenticate(req, { db: store.reader, host, clock }, "either");
    const pathId = `${stringParam(req.params, "realm_id_str")}/${stringParam(req.params, "*")}`;
    return sendFile(reply, await readUploadForUser(store.reader, config, realm, user, pathId));
  });
  app.get("/user_avatars/:realm_id/:file_name", async (req, reply) => {
    const realmId = Number(stringParam(req.params, "realm_id"));
    const data = Number.isInteger(realmId) ? await readAvatarImage(config, realmId, stringParam(req.params, "file_name")) : null;
    return sendPublicImage(reply, data === null ? null : { data, contentType: "image/png" }, AVATAR_CACHE_SECONDS);
  });
  app.get("/user_avatars/:realm_id/emoji/images/:file_name", async (req, reply) => {
    const realmId = Number(stringParam(req.params, "realm_id"));
    const image = Number.isInteger(realmId) ? await readEmojiImage(config, realmId, stringParam(req.params, "file_name")) : null;
    return sendPublicImage(reply, image, EMOJI_CACHE_SECONDS);
  });
};
