/** The invitation email (Zulip's zerver/emails/invitation) and the sign-up confirmation email (confirm_registration), queued for the email worker. */
import type { InviteRow } from "../../store/schema/invites.ts";
import type { UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { inviteLinkUrl } from "../../present/invites.ts";
import type { DoEnv } from "../context.ts";
import { doQueueEmail } from "../email/outbox.ts";

/** A UNIX time as "YYYY-MM-DD hh:mm:ss UTC". */
function utcText(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

/** When the invitation stops working, in words. */
function expiryText(expiresAt: number | null): string {
  return expiresAt === null ? "This invitation does not expire." : `This invitation expires on ${utcText(expiresAt)}.`;
}

/** Queues the email carrying an invitation's link (`token`); nothing without SMTP_URL. */
export async function doQueueInviteEmail(tx: Db, env: Pick<DoEnv, "realm" | "config">, invite: InviteRow, token: string, inviter: UserRow): Promise<void> {
  const { realm, config } = env;
  if (invite.email === null) return;
  const body = [
    "Hello,",
    "",
    `${inviter.full_name} has invited you to join ${realm.name}, a team chat organization at ${config.externalUrl}.`,
    "",
    "To accept, open this link and create your account:",
    inviteLinkUrl(config.externalUrl, token),
    "",
    expiryText(invite.expires_at),
    "If you were not expecting this invitation, you can ignore this email.",
    "",
  ].join("\n");
  await doQueueEmail(tx, env, { to: invite.email, subject: `${inviter.full_name} invited you to join ${realm.name}`, body });
}

/** Queues the email carrying a sign-up confirmation's link (`token`) to the address a reusable link's visitor gave. */
export async function doQueueConfirmationEmail(tx: Db, env: Pick<DoEnv, "realm" | "config">, confirmation: InviteRow, token: string): Promise<void> {
  const { realm, config } = env;
  if (confirmation.email === null) return;
  const body = [
    "Hello,",
    "",
    `Someone, probably you, asked to join ${realm.name}, a team chat organization at ${config.externalUrl}, with this email address.`,
    "",
    "To confirm the address and create your account, open this link:",
    inviteLinkUrl(config.externalUrl, token),
    "",
    confirmation.expires_at === null ? "" : `The link works until ${utcText(confirmation.expires_at)}.`,
    "If you did not ask for this, you can ignore this email: no account is created without the link.",
    "",
  ].join("\n");
  await doQueueEmail(tx, env, { to: confirmation.email, subject: `Confirm your email address to join ${realm.name}`, body });
}
