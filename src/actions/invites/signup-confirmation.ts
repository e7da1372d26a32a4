/**
 * Confirming a reusable link's visitor's address (Zulip's accounts_home from a multiuse invite,
 * then its registration confirmation): with SMTP_URL set, the visitor gives their address, the
 * organization's rules are checked, and a sign-up confirmation is mailed to it. The confirmation
 * is a single-use invitation to that address with the link's role and channels
 * (invites.multiuse_invite_id names the link): its link opens the sign-up page, where the name and
 * password complete the sign-up (accept.ts), so no account exists before the address is confirmed.
 */
import { JsonableError } from "../../errors.ts";
import { invitesChangedEvent } from "../../events/kinds/invites.ts";
import { withTransaction, type ActionCtx } from "../context.ts";
import { checkAddressFree, checkVisitorAddress, needsEmailConfirmation } from "./accept.ts";
import { inviteByToken } from "./access.ts";
import { doCreateInvite } from "./create.ts";
import { doQueueConfirmationEmail } from "./email.ts";

/**
 * POST /invites/accept/{token}/confirm_email: mails a sign-up confirmation to `email`, refused
 * as registering would refuse it (allowed domains, disposable providers, an existing account, an
 * open email invitation). A visitor may ask again; the first confirmation used revokes the others.
 */
export async function sendSignupConfirmation(ctx: ActionCtx, token: string, input: { email: string }): Promise<{ email: string }> {
  const found = await inviteByToken(ctx, ctx.db, token);
  // Without SMTP nothing could be mailed: such a link registers directly (POST .../register).
  if (!needsEmailConfirmation(ctx, found)) throw new JsonableError("This invitation link does not confirm email addresses: sign up with it directly.");
  const email = await checkVisitorAddress(ctx, found, input.email);
  await withTransaction(ctx, async (tx, emit) => {
    const link = await inviteByToken(ctx, tx, token);
    await checkAddressFree(ctx, tx, link, email);
    const options = {
      invite_expires_in_minutes: ctx.config.signupConfirmationMinutes,
      invite_as: link.invited_as,
      stream_ids: JSON.parse(link.stream_ids) as number[],
      include_realm_default_subscriptions: link.include_realm_default_subscriptions === 1,
      welcome_message_custom_text: link.welcome_message_custom_text,
      notify: false,
      multiuseInviteId: link.id,
    };
    const { invite, token: confirmationToken } = await doCreateInvite(tx, ctx, link.invited_by, email, options);
    await doQueueConfirmationEmail(tx, ctx, invite, confirmationToken);
    // The link's creator refetches nothing new (confirmations are not listed), but the event
    // wakes the email worker of every process at once, as a resent invitation's does.
    emit(invitesChangedEvent(), [link.invited_by]);
  });
  return { email };
}
