/** The invitation email (Zulip's zerver/emails/invitation), queued for the email worker. */
import type { InviteRow } from "../../store/schema-invites.ts";
import type { UserRow } from "../../store/schema.ts";
import type { Db } from "../../store/types.ts";
import { inviteLinkUrl } from "../../present/invites.ts";
import type { DoEnv } from "../context.ts";
import { doQueueEmail } from "../email/outbox.ts";

/** When the invitation stops working, in words. */
function expiryText(expiresAt: number | null): string {
  if (expiresAt === null) return "This invitation does not expire.";
  const when = new Date(expiresAt * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  return `This invitation expires on ${when}.`;
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
