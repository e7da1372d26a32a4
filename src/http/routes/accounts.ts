/**
 * The unauthenticated calls of the web app's account pages (Parley's own; upstream serves these
 * as HTML forms at the same paths without /json): asking for a password reset link
 * (`/accounts/password/reset/`), reading and using one (`/accounts/password/reset/<uidb64>/<token>/`),
 * and confirming a new email address (`/accounts/confirm_new_email/<key>/`).
 */
import { z } from "zod";
import { confirmEmailChange } from "../../actions/users/email-change.ts";
import { readPasswordResetLink, requestPasswordReset, resetPassword } from "../../actions/users/password-reset.ts";
import { defineEndpoint } from "../endpoint.ts";
import { str } from "../params.ts";

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "POST",
    path: "/accounts/password/reset",
    auth: "none",
    // Counted per client address as upstream counts its form (sends_email_by_ip), whatever the address asked for.
    sendsEmail: true,
    params: z.object({ email: str() }),
    handler: (p, ctx, { accountLimits }) => requestPasswordReset(ctx, accountLimits.passwordResetByEmail, p),
  }),
  defineEndpoint({
    method: "GET",
    path: "/accounts/password/reset/:uidb64/:token",
    auth: "none",
    params: z.object({ uidb64: str(), token: str() }),
    handler: (p, ctx) => readPasswordResetLink(ctx, p.uidb64, p.token),
  }),
  defineEndpoint({
    method: "POST",
    path: "/accounts/password/reset/:uidb64/:token",
    auth: "none",
    params: z.object({ uidb64: str(), token: str(), new_password: str() }),
    handler: ({ uidb64, token, ...input }, ctx, { loginLimiter }) => resetPassword(ctx, loginLimiter, uidb64, token, input),
  }),
  defineEndpoint({
    method: "POST",
    path: "/accounts/confirm_new_email/:key",
    auth: "none",
    params: z.object({ key: str() }),
    handler: (p, ctx) => confirmEmailChange(ctx, p.key),
  }),
];
