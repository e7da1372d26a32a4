/**
 * Sign-up by invitation: an invitation link is `{site}/join/{token}/` (the server answers it with
 * the app's page). The page reads the invitation, registers the account with it, signs in, and
 * leaves the address for the app's own. A reusable link on a server that sends email first has
 * the visitor's address confirmed: the server mails it a link of its own, which opens this page
 * again to finish.
 */
import { signal } from "@preact/signals";
import { api } from "../api/client.ts";
import { manageApi, type InviteSummary } from "../api/manage.ts";
import { login } from "./session.ts";

/** The invitation token of a `/join/{token}/` address, or null. */
function tokenOf(pathname: string): string | null {
  const match = /^\/join\/([^/]+)\/?$/.exec(pathname);
  if (match === null) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

/** The token of the invitation this page was opened with (null: not a sign-up page). */
export const joinToken = signal<string | null>(tokenOf(location.pathname));

/** Reads the invitation; rejects with the server's ApiError for an unknown or expired link. */
export function readInvite(token: string): Promise<InviteSummary> {
  return manageApi.invite(token);
}

/** Creates the account, signs in and leaves the sign-up page for the app. */
export async function signUp(token: string, input: { full_name: string; password: string; email?: string }): Promise<void> {
  // The CSRF cookie the POST needs comes with the session answer.
  await api.session();
  const { email } = await manageApi.acceptInvite(token, input);
  await login(email, input.password);
  history.replaceState(null, "", "/");
  joinToken.value = null;
}

/** Asks the server to mail a sign-up confirmation to the address typed into a reusable link's page; resolves to the address. */
export async function askEmailConfirmation(token: string, email: string): Promise<string> {
  // The CSRF cookie the POST needs comes with the session answer.
  await api.session();
  return (await manageApi.confirmSignupEmail(token, email)).email;
}
