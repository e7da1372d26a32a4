/** Reporting a message to the organization's moderators. */
import { z } from "zod";
import { MAX_REPORT_DESCRIPTION_LENGTH, reportMessage } from "../../actions/messages/report.ts";
import { defineEndpoint } from "../endpoint.ts";
import { pathInt, str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/messages/:message_id/report",
    auth: "user",
    params: z.object({
      message_id: pathInt({ min: 0 }),
      report_type: str().pipe(z.enum(["spam", "harassment", "inappropriate", "norms", "other"])),
      description: str().max(MAX_REPORT_DESCRIPTION_LENGTH).default(""),
    }),
    handler: async (p, ctx) => {
      await reportMessage(ctx, p);
      return {};
    },
  }),
];
