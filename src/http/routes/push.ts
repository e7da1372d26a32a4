/**
 * Mobile push registration: the E2EE registration (POST /mobile_push/register, FL 406) and the
 * legacy token calls the Zulip app makes (POST/DELETE /users/me/apns_device_token and
 * /users/me/android_gcm_reg_id); the test notifications of both (POST
 * /mobile_push/e2ee/test_notification, FL 420, and the legacy /mobile_push/test_notification).
 */
import { z } from "zod";
import { registerPushDevice } from "../../actions/push/devices.ts";
import { sendLegacyTestNotification, sendTestNotification } from "../../actions/push/test-notification.ts";
import { addPushToken, removePushToken } from "../../actions/push/tokens.ts";
import { JsonableError } from "../../errors.ts";
import { defineEndpoint } from "../endpoint.ts";
import { str } from "../params.ts";

const token = z.object({ token: str() });

/** The largest signed 64-bit integer (the column upstream keeps push_account_id in). */
const MAX_INT64 = 9_223_372_036_854_775_807n;

/** A JSON-encoded non-negative 64-bit integer, kept as its decimal text (exact beyond 2^53). */
function accountId(raw: string): string {
  const text = raw.trim();
  if (!/^\d{1,19}$/.test(text) || BigInt(text) > MAX_INT64) throw new JsonableError("push_account_id is not an integer");
  return BigInt(text).toString();
}

/** DELETE of a legacy token registration: the same call for both kinds. */
function forgetTokenEndpoint(path: string, kind: "apns" | "fcm") {
  return defineEndpoint({
    method: "DELETE",
    path,
    auth: "user",
    params: token,
    handler: async ({ token: value }, ctx) => {
      await removePushToken(ctx, { kind, token: value });
      return {};
    },
  });
}

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/mobile_push/e2ee/test_notification",
    auth: "user",
    params: z.object({ push_account_id: str().optional() }),
    handler: async ({ push_account_id }, ctx) => {
      await sendTestNotification(ctx, push_account_id === undefined ? null : accountId(push_account_id));
      return {};
    },
  }),
  defineEndpoint({
    method: "POST",
    path: "/mobile_push/test_notification",
    auth: "user",
    params: z.object({ token: str().optional() }),
    handler: async ({ token: value }, ctx) => {
      await sendLegacyTestNotification(ctx, value ?? null);
      return {};
    },
  }),
  defineEndpoint({
    method: "POST",
    path: "/mobile_push/register",
    auth: "user",
    params: z.object({ token_kind: str(), push_account_id: str(), push_public_key: str(), bouncer_public_key: str(), encrypted_push_registration: str() }),
    handler: async (p, ctx) => {
      await registerPushDevice(ctx, { ...p, push_account_id: accountId(p.push_account_id) });
      return {};
    },
  }),
  defineEndpoint({
    method: "POST",
    path: "/users/me/apns_device_token",
    auth: "user",
    // appid has been required since FL 223.
    params: z.object({ token: str(), appid: str() }),
    handler: async ({ token: value, appid }, ctx) => {
      await addPushToken(ctx, { kind: "apns", token: value, appId: appid });
      return {};
    },
  }),
  defineEndpoint({
    method: "POST",
    path: "/users/me/android_gcm_reg_id",
    auth: "user",
    params: token,
    handler: async ({ token: value }, ctx) => {
      await addPushToken(ctx, { kind: "fcm", token: value });
      return {};
    },
  }),
  forgetTokenEndpoint("/users/me/apns_device_token", "apns"),
  forgetTokenEndpoint("/users/me/android_gcm_reg_id", "fcm"),
];
