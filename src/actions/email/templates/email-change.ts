/**
 * The emails of an email address change (Zulip's zerver/emails/confirm_new_email and
 * notify_change_in_email): the link that confirms the new address, sent to it, and, once it is
 * confirmed, the notice to the old address.
 */
import { actionLink, emailDocument, html, type EmailContent, type Site } from "./html.ts";

/** To the new address: the link that makes the change (it works once, for `validMinutes`). */
export function confirmNewEmailEmail(newEmail: string, fullName: string, oldEmail: string, site: Site, confirmUrl: string, validMinutes: number): EmailContent {
  const title = `Verify your new email address for ${new URL(site.url).host}`;
  const body = [
    `Hello ${fullName},`,
    "",
    `You asked to change the email address of your account in ${site.realmName} at ${site.url} from ${oldEmail} to ${newEmail}.`,
    "",
    "To confirm the new address, open this link:",
    confirmUrl,
    "",
    `The address changes only once the link is opened. It works once, for ${validMinutes} minutes.`,
    "If you did not ask for this, you can ignore this email.",
    "",
  ].join("\n");
  const markup = html`<p>Hello ${fullName},</p>
<p>You asked to change the email address of your account in ${site.realmName} at ${site.url} from <strong>${oldEmail}</strong> to <strong>${newEmail}</strong>.</p>
${actionLink(confirmUrl, "Confirm the new address")}
<p>The address changes only once the link is opened. It works once, for ${validMinutes} minutes.</p>
<p>If you did not ask for this, you can ignore this email.</p>`;
  return { subject: title, body, html: emailDocument(title, markup) };
}

/** To the old address, once the change is made: where the account's email goes now. */
export function emailChangedNoticeEmail(oldEmail: string, newEmail: string, site: Site): EmailContent {
  const title = `Email address changed for ${site.realmName}`;
  const body = [
    "Hello,",
    "",
    `The email address of your account in ${site.realmName} at ${site.url} was changed from ${oldEmail} to ${newEmail}.`,
    "",
    "If you did not make this change, contact an administrator of the organization at once.",
    "",
  ].join("\n");
  const markup = html`<p>Hello,</p>
<p>The email address of your account in ${site.realmName} at ${site.url} was changed from <strong>${oldEmail}</strong> to <strong>${newEmail}</strong>.</p>
<p>If you did not make this change, contact an administrator of the organization at once.</p>`;
  return { subject: title, body, html: emailDocument(title, markup) };
}
