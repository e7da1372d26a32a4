/** Uploads: POST /user_uploads and the temporary-URL call GET /user_uploads/{realm_id_str}/{filename}. */
import { z } from "zod";
import { temporaryUploadUrl, uploadFile } from "../../actions/attachments/uploads.ts";
import { uploadedFiles } from "../../files/uploaded-file.ts";
import { defineEndpoint } from "../endpoint.ts";
import { str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/user_uploads",
    auth: "user",
    // The file may come under any field name (zulip-js uses "filename", the web app "file-0").
    params: z.looseObject({}),
    handler: async (params, ctx) => uploadFile(ctx, uploadedFiles(params)),
  }),
  defineEndpoint({
    method: "GET",
    path: "/user_uploads/:realm_id_str/*",
    auth: "user",
    params: z.object({ realm_id_str: str(), "*": str() }),
    handler: async (params, ctx) => ({ url: await temporaryUploadUrl(ctx, `${params.realm_id_str}/${params["*"]}`) }),
  }),
];
