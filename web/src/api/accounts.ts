/**
 * The calls of the account pages (unauthenticated, under /json): asking for a password reset
 * link, reading and using one, and confirming a new email address.
 */
import { call } from "./client.ts";

const path = encodeURIComponent;

/** The calls, typed. */
export const accountsApi = {
  requestPasswordReset: (email: string) => call<object>("POST", "/accounts/password/reset", { email }),
  readResetLink: (uid: string, token: string) => call<{ email: string }>("GET", `/accounts/password/reset/${path(uid)}/${path(token)}`),
  resetPassword: (uid: string, token: string, newPassword: string) =>
    call<{ email: string }>("POST", `/accounts/password/reset/${path(uid)}/${path(token)}`, { new_password: newPassword }),
  confirmNewEmail: (key: string) => call<{ old_email: string; new_email: string }>("POST", `/accounts/confirm_new_email/${path(key)}`),
};
