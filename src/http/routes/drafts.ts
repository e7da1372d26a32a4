/** Drafts: GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}. */
import { z } from "zod";
import { createDrafts, editDraft, listOwnDrafts, removeDraft } from "../../actions/messages/drafts.ts";
import { defineEndpoint } from "../endpoint.ts";
import { dbInt, json, pathInt } from "../params.ts";

/** Zulip's DraftData: no other keys; content must not be blank (RequiredStringConstraint). */
const draft = () =>
  z.strictObject({
    type: z.enum(["", "private", "stream"]),
    to: z.array(dbInt()),
    topic: z.string(),
    content: z.string().refine((s) => s.trim() !== "", "{var_name} cannot be blank"),
    timestamp: z.number().nullable().optional(),
  });

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/drafts",
    auth: "user",
    params: z.object({}),
    handler: async (_params, ctx) => listOwnDrafts(ctx),
  }),
  defineEndpoint({
    method: "POST",
    path: "/drafts",
    auth: "user",
    params: z.object({ drafts: json(z.array(draft())) }),
    // The action refuses NUL in content and topic in Zulip's words.
    nulChecked: ["drafts"],
    handler: async (params, ctx) => ({ ids: await createDrafts(ctx, params) }),
  }),
  defineEndpoint({
    method: "PATCH",
    path: "/drafts/:draft_id",
    auth: "user",
    params: z.object({ draft_id: pathInt(), draft: json(draft()) }),
    nulChecked: ["draft"],
    handler: async ({ draft_id, ...input }, ctx) => {
      await editDraft(ctx, draft_id, input);
      return {};
    },
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/drafts/:draft_id",
    auth: "user",
    params: z.object({ draft_id: pathInt() }),
    handler: async ({ draft_id }, ctx) => {
      await removeDraft(ctx, draft_id);
      return {};
    },
  }),
];
