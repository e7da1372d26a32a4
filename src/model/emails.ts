/** Which email address the API shows for a user. */

/** Zulip's email_address_visibility values. */
export const EMAIL_VISIBILITY = { everyone: 1, members: 2, admins: 3, nobody: 4, moderators: 5 } as const;

/**
 * The domain of dummy and bot addresses: the external URL's host name without a port (a port
 * would make the address invalid and break `email:key` Basic auth).
 */
export function emailDomain(externalUrl: string): string {
  return new URL(externalUrl).hostname;
}

/** The dummy address `user{id}@{host}` that names a user without revealing their own. */
export function dummyEmail(userId: number, host: string): string {
  return `user${userId}@${host}`;
}

/** The user's API email: the real one when visible to everyone, else the dummy address. */
export function apiEmail(user: { id: number; delivery_email: string; email_address_visibility: number }, host: string): string {
  return user.email_address_visibility === EMAIL_VISIBILITY.everyone ? user.delivery_email : dummyEmail(user.id, host);
}
