/**
 * The download of an organization data export: `/user_uploads/exports/<realm_id>/<random>/<name>.tar.gz`,
 * the `export_url` GET /export/realm gives, streamed to an administrator of the realm
 * (the browser's session cookie, or HTTP Basic auth, as other uploads); anyone else gets the
 * 404 of a missing file.
 */
import { createReadStream } from "node:fs";
import { readRealmExportFile } from "../../actions/export/realm-export-files.ts";
import { authenticate } from "../auth.ts";
import type { RawRoutes } from "../endpoint.ts";

/** Registers the export download route on the app. */
export const registerRoutes: RawRoutes = (app, deps, host) => {
  const { store, config, clock } = deps;
  app.get("/user_uploads/exports/*", async (req, reply) => {
    const { user, realm } = await authenticate(req, { db: store.reader, host, clock }, "either");
    const rest = (req.params as Record<string, string | undefined>)["*"] ?? "";
    const file = await readRealmExportFile(store.reader, config.uploadsDir, realm, user, rest);
    return reply
      .headers({
        "content-type": "application/gzip",
        "content-length": String(file.size),
        "content-disposition": `attachment; filename="${file.fileName}"`,
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-store",
      })
      .send(createReadStream(file.fullPath));
  });
};
