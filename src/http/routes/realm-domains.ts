/** The organization's allowed email domains (Zulip's /realm/domains; the list also reaches clients through /register). */
import { z } from "zod";
import { addRealmDomain, changeRealmDomain, getRealmDomains, removeRealmDomain } from "../../actions/organization/realm-domains.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/realm/domains",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => getRealmDomains(ctx),
  }),
  defineEndpoint({
    method: "POST",
    path: "/realm/domains",
    auth: "user",
    params: z.object({ domain: str(), allow_subdomains: bool() }),
    handler: (p, ctx) => addRealmDomain(ctx, p),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/realm/domains/:domain",
    auth: "user",
    params: z.object({ domain: str(), allow_subdomains: bool() }),
    handler: ({ domain, ...input }, ctx) => changeRealmDomain(ctx, domain, input),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/realm/domains/:domain",
    auth: "user",
    params: z.object({ domain: str() }),
    handler: (p, ctx) => removeRealmDomain(ctx, p.domain),
  }),
];
