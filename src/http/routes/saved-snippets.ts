/** Saved snippets: GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{saved_snippet_id}. */
import { z } from "zod";
import { createSavedSnippet, editSavedSnippet, listOwnSavedSnippets, removeSavedSnippet } from "../../actions/users/saved-snippets.ts";
import { defineEndpoint } from "../endpoint.ts";
import { pathInt, str } from "../params.ts";

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH. */
const MAX_TITLE_LENGTH = 60;
/** Zulip bounds content by settings.MAX_MESSAGE_LENGTH (10,000 characters). */
const MAX_CONTENT_LENGTH = 10_000;

// Both are stripped before their length is checked, as Zulip's StringConstraints(strip_whitespace).
const title = () => str().trim().min(1).max(MAX_TITLE_LENGTH);
const content = () => str().trim().min(1).max(MAX_CONTENT_LENGTH);

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/saved_snippets",
    auth: "user",
    params: z.object({}),
    handler: async (_params, ctx) => ({ saved_snippets: await listOwnSavedSnippets(ctx) }),
  }),
  defineEndpoint({
    method: "POST",
    path: "/saved_snippets",
    auth: "user",
    params: z.object({ title: title(), content: content() }),
    handler: async (params, ctx) => ({ saved_snippet_id: await createSavedSnippet(ctx, params) }),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/saved_snippets/:saved_snippet_id",
    auth: "user",
    params: z.object({ saved_snippet_id: pathInt(), title: title().optional(), content: content().optional() }),
    handler: async ({ saved_snippet_id, ...patch }, ctx) => {
      await editSavedSnippet(ctx, saved_snippet_id, patch);
      return {};
    },
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/saved_snippets/:saved_snippet_id",
    auth: "user",
    params: z.object({ saved_snippet_id: pathInt() }),
    handler: async ({ saved_snippet_id }, ctx) => {
      await removeSavedSnippet(ctx, saved_snippet_id);
      return {};
    },
  }),
];
