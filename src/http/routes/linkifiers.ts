/** Linkifiers: list, add, update, delete (under Zulip's older /realm/filters paths) and reorder. */
import { z } from "zod";
import { addLinkifier, changeLinkifier, getLinkifiers, removeLinkifier, reorderRealmLinkifiers } from "../../actions/organization/linkifiers.ts";
import { defineEndpoint } from "../endpoint.ts";
import { intList, pathInt, str } from "../params.ts";

const linkifierParams = { pattern: str(), url_template: str() };

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/realm/linkifiers",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => getLinkifiers(ctx),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/realm/linkifiers",
    auth: "user",
    params: z.object({ ordered_linkifier_ids: intList() }),
    handler: (p, ctx) => reorderRealmLinkifiers(ctx, p.ordered_linkifier_ids),
  }),
  defineEndpoint({
    method: "POST",
    path: "/realm/filters",
    auth: "user",
    params: z.object(linkifierParams),
    handler: (p, ctx) => addLinkifier(ctx, p),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/realm/filters/:filter_id",
    auth: "user",
    params: z.object({ filter_id: pathInt(), ...linkifierParams }),
    handler: (p, ctx) => changeLinkifier(ctx, p.filter_id, { pattern: p.pattern, url_template: p.url_template }),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/realm/filters/:filter_id",
    auth: "user",
    params: z.object({ filter_id: pathInt() }),
    handler: (p, ctx) => removeLinkifier(ctx, p.filter_id),
  }),
];
