/**
 * Organization data exports (administrators only, as upstream's @require_realm_admin): ask for
 * one, list them, delete one's file, and the users' consents to the export of their private
 * data. The files download from `/user_uploads/exports/...` (export-download.ts).
 */
import { z } from "zod";
import { deleteRealmExport, getExportConsents, getRealmExports, requestRealmExport } from "../../actions/export/realm-exports.ts";
import { EXPORT_TYPE } from "../../model/realm-exports.ts";
import { defineEndpoint } from "../endpoint.ts";
import { intIn, pathInt } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/export/realm",
    auth: "user",
    adminOnly: true,
    params: z.object({ export_type: intIn(EXPORT_TYPE.public, EXPORT_TYPE.fullWithConsent).default(EXPORT_TYPE.public) }),
    handler: (p, ctx) => requestRealmExport(ctx, p),
  }),
  defineEndpoint({
    method: "GET",
    path: "/export/realm",
    auth: "user",
    adminOnly: true,
    params: z.object({}),
    handler: (_p, ctx) => getRealmExports(ctx),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/export/realm/:export_id",
    auth: "user",
    adminOnly: true,
    params: z.object({ export_id: pathInt() }),
    handler: (p, ctx) => deleteRealmExport(ctx, p.export_id),
  }),
  defineEndpoint({
    method: "GET",
    path: "/export/realm/consents",
    auth: "user",
    adminOnly: true,
    params: z.object({}),
    handler: (_p, ctx) => getExportConsents(ctx),
  }),
];
