/** Invitations as GET /invites shows them (Zulip's Invite object), and the links they are opened by. */
import type { InviteRow } from "../store/schema/invites.ts";

/** The web app's address of an invitation's sign-up page, for a token. */
export function inviteLinkUrl(externalUrl: string, token: string): string {
  return `${externalUrl}/join/${token}/`;
}

/** An invitation as GET /invites shows it: email invitations with their address, reusable links with their URL. */
export function presentInvite(row: InviteRow, externalUrl: string): Record<string, unknown> {
  const common = {
    id: row.id,
    invited_by_user_id: row.invited_by,
    invited: row.invited_at,
    expiry_date: row.expires_at,
    invited_as: row.invited_as,
  };
  if (row.is_multiuse === 1) return { ...common, is_multiuse: true, link_url: inviteLinkUrl(externalUrl, row.link_token ?? "") };
  return { ...common, email: row.email, is_multiuse: false, notify_referrer_on_join: row.notify_referrer_on_join === 1 };
}
