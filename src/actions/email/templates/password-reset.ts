/**
 * The password reset emails (Zulip's zerver/emails/password_reset): the link for an active
 * account, and, for a deactivated one, why there is none. Both go only to the account's own
 * address; a request for an address without an account mails nothing.
 */
import { actionLink, emailDocument, html, type EmailContent, type Site } from "./html.ts";

/** Zulip's subject for both. */
function subject(site: Site): string {
  return `Password reset request for ${site.realmName}`;
}

/** The link that sets a new password; it works once, for `validMinutes`. */
export function passwordResetEmail(email: string, fullName: string, site: Site, resetUrl: string, validMinutes: number): EmailContent {
  const title = subject(site);
  const lifetime = `The link works once, for ${validMinutes} minutes.`;
  const body = [
    `Hello ${fullName},`,
    "",
    `Someone, probably you, asked to reset the password of your account (${email}) in ${site.realmName} at ${site.url}.`,
    "",
    "To choose a new password, open this link:",
    resetUrl,
    "",
    `${lifetime} Setting a new password logs you out of your other browsers.`,
    "If you did not ask for this, you can ignore this email: your password stays as it is.",
    "",
  ].join("\n");
  const markup = html`<p>Hello ${fullName},</p>
<p>Someone, probably you, asked to reset the password of your account (<strong>${email}</strong>) in ${site.realmName} at ${site.url}.</p>
${actionLink(resetUrl, "Choose a new password")}
<p>${lifetime} Setting a new password logs you out of your other browsers.</p>
<p>If you did not ask for this, you can ignore this email: your password stays as it is.</p>`;
  return { subject: title, body, html: emailDocument(title, markup) };
}

/** The answer for a deactivated account: no link, and who can help. */
export function deactivatedAccountResetEmail(email: string, site: Site): EmailContent {
  const title = subject(site);
  const body = [
    "Hello,",
    "",
    `Someone, probably you, asked to reset the password of the account ${email} in ${site.realmName} at ${site.url}.`,
    "",
    "That account has been deactivated, so its password cannot be reset. If you think it should be active again, ask an administrator of the organization to reactivate it.",
    "",
  ].join("\n");
  const markup = html`<p>Hello,</p>
<p>Someone, probably you, asked to reset the password of the account <strong>${email}</strong> in ${site.realmName} at ${site.url}.</p>
<p>That account has been deactivated, so its password cannot be reset. If you think it should be active again, ask an administrator of the organization to reactivate it.</p>`;
  return { subject: title, body, html: emailDocument(title, markup) };
}
