/** Navigation views (FL 390): GET/POST /navigation_views, PATCH/DELETE /navigation_views/{fragment}. */
import { z } from "zod";
import { addNavigationView, editNavigationView, getNavigationViews, removeNavigationView } from "../../actions/users/navigation-views.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, str } from "../params.ts";

// Fragments hold slashes ("narrow/is/alerted"), sent raw or as %2F: the path's rest is the fragment.
const FRAGMENT_PATH = "/navigation_views/*";
const byFragment = { "*": str() };

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/navigation_views",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => getNavigationViews(ctx),
  }),
  defineEndpoint({
    method: "POST",
    path: "/navigation_views",
    auth: "user",
    params: z.object({ fragment: str(), is_pinned: bool(), name: str().optional() }),
    handler: (p, ctx) => addNavigationView(ctx, p),
  }),
  defineEndpoint({
    method: "PATCH",
    path: FRAGMENT_PATH,
    auth: "user",
    params: z.object({ ...byFragment, is_pinned: bool().optional(), name: str().optional() }),
    handler: ({ "*": fragment, ...p }, ctx) => editNavigationView(ctx, fragment, p),
  }),
  defineEndpoint({
    method: "DELETE",
    path: FRAGMENT_PATH,
    auth: "user",
    params: z.object(byFragment),
    handler: (p, ctx) => removeNavigationView(ctx, p["*"]),
  }),
];
