/** Code playgrounds: add and remove (the list reaches clients through /register). */
import { z } from "zod";
import { addPlayground, removePlayground } from "../../actions/organization/playgrounds.ts";
import { defineEndpoint } from "../endpoint.ts";
import { pathInt, str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/realm/playgrounds",
    auth: "user",
    params: z.object({ name: str(), pygments_language: str(), url_template: str() }),
    handler: (p, ctx) => addPlayground(ctx, p),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/realm/playgrounds/:playground_id",
    auth: "user",
    params: z.object({ playground_id: pathInt() }),
    handler: (p, ctx) => removePlayground(ctx, p.playground_id),
  }),
];
