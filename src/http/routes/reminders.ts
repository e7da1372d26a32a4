/** Reminders (FL 381-415): GET/POST /reminders, DELETE /reminders/{reminder_id}. */
import { z } from "zod";
import { createReminder, listOwnReminders, removeReminder } from "../../actions/messages/reminders.ts";
import { defineEndpoint } from "../endpoint.ts";
import { int, pathInt, str, unixSeconds } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/reminders",
    auth: "user",
    params: z.object({}),
    handler: async (_params, ctx) => ({ reminders: await listOwnReminders(ctx) }),
  }),
  defineEndpoint({
    method: "POST",
    path: "/reminders",
    auth: "user",
    nulChecked: ["note"],
    params: z.object({ message_id: int(), scheduled_delivery_timestamp: unixSeconds(), note: str().optional() }),
    handler: async ({ message_id, scheduled_delivery_timestamp, note }, ctx) => ({
      reminder_id: await createReminder(ctx, { messageId: message_id, scheduledDeliveryTimestamp: scheduled_delivery_timestamp, note }),
    }),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/reminders/:reminder_id",
    auth: "user",
    params: z.object({ reminder_id: pathInt() }),
    handler: async ({ reminder_id }, ctx) => {
      await removeReminder(ctx, reminder_id);
      return {};
    },
  }),
];
