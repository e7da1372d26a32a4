/**
 * The account pages, each a path of its own that the server answers with the app's page (as
 * upstream's): `/accounts/password/reset/` asks for a reset link by email,
 * `/accounts/password/reset/<uidb64>/<token>/` (the emailed link) sets a new password, and
 * `/accounts/confirm_new_email/<key>/` (an email change's link) confirms a new address.
 */
import { signal } from "@preact/signals";
import { accountsApi } from "../api/accounts.ts";
import { api, ApiError } from "../api/client.ts";
import { manageApi } from "../api/manage.ts";

/** Which account page this is, with the parts of its path. */
export type AccountPage = { kind: "reset-request" } | { kind: "reset-password"; uid: string; token: string } | { kind: "confirm-email"; key: string };

/** The decoded path segment, or null when it is not valid percent-encoding. */
function segment(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** The account page of a path, or null. */
function pageOf(pathname: string): AccountPage | null {
  if (/^\/accounts\/password\/reset\/?$/.test(pathname)) return { kind: "reset-request" };
  const reset = /^\/accounts\/password\/reset\/([^/]+)\/([^/]+)\/?$/.exec(pathname);
  const [uid, token] = reset ? [segment(reset[1]), segment(reset[2])] : [null, null];
  if (uid !== null && token !== null) return { kind: "reset-password", uid, token };
  const confirm = /^\/accounts\/confirm_new_email\/([^/]+)\/?$/.exec(pathname);
  const key = confirm ? segment(confirm[1]) : null;
  return key === null ? null : { kind: "confirm-email", key };
}

/** The account page this tab shows (null: the app itself). */
export const accountPage = signal<AccountPage | null>(pageOf(location.pathname));

/** Whether the server sends email (without it, the reset form tells the user to ask an administrator); also fetches the CSRF cookie the page's POSTs need. */
export async function serverSendsEmail(): Promise<boolean> {
  return (await api.session()).email_sending === true;
}

/** Asks for a reset link to `email`; the answer is the same whether or not the address has an account. */
export async function askPasswordReset(email: string): Promise<void> {
  await accountsApi.requestPasswordReset(email);
}

/** The address a reset link is for; rejects with the server's error for a bad or expired link. */
export async function readResetLink(uid: string, token: string): Promise<string> {
  await api.session();
  return (await accountsApi.readResetLink(uid, token)).email;
}

/** Sets the new password with the link, once typed twice alike; resolves to the account's address. */
export async function setNewPassword(uid: string, token: string, password: string, again: string): Promise<string> {
  if (password !== again) throw new ApiError("BAD_REQUEST", "The two passwords do not match.", 0);
  return (await accountsApi.resetPassword(uid, token, password)).email;
}

/** Makes the email change the link was mailed for; resolves to the old and new addresses. */
export async function confirmNewEmail(key: string): Promise<{ old_email: string; new_email: string }> {
  await api.session();
  return accountsApi.confirmNewEmail(key);
}

/** Asks to change the signed-in user's address to `email`: the server mails it a confirmation link, and nothing changes until it is opened. */
export async function askEmailChange(email: string): Promise<void> {
  await manageApi.updateSettings({ email });
}
