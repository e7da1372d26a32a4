/** The new-login notice (Zulip's zerver/emails/notify_new_login): when, from what and from where the account was logged in. */
import { emailDocument, html, type EmailContent, type Site } from "./html.ts";

/** What the notice says about the login. */
export type LoginFacts = { time: string; browser: string; os: string; ip: string };

/** The notice to the account's address `email`; `settingsUrl` is where the notices are turned off. */
export function newLoginEmail(email: string, fullName: string, site: Site, login: LoginFacts, settingsUrl: string): EmailContent {
  const title = `New login from ${login.browser} on ${login.os}`;
  const device = `${login.browser} on ${login.os}`;
  const body = [
    `Hello ${fullName},`,
    "",
    `A new login to your account in ${site.realmName} has just occurred.`,
    "",
    `Server: ${site.url}`,
    `Account: ${email}`,
    `Time: ${login.time}`,
    `Device: ${device}`,
    `IP address: ${login.ip}`,
    "",
    "If you do not recognize this login, change your password at once and tell an administrator of the organization.",
    `You can turn these emails off in your notification settings: ${settingsUrl}`,
    "",
  ].join("\n");
  const markup = html`<p>Hello ${fullName},</p>
<p><strong>A new login to your account</strong> in ${site.realmName} has just occurred.</p>
<table style="border-collapse:collapse;margin:16px 0">
<tr><td style="color:#555555;padding:2px 12px 2px 0">Server</td><td><a href="${site.url}" style="color:#2f6fd1">${site.url}</a></td></tr>
<tr><td style="color:#555555;padding:2px 12px 2px 0">Account</td><td>${email}</td></tr>
<tr><td style="color:#555555;padding:2px 12px 2px 0">Time</td><td>${login.time}</td></tr>
<tr><td style="color:#555555;padding:2px 12px 2px 0">Device</td><td>${device}</td></tr>
<tr><td style="color:#555555;padding:2px 12px 2px 0">IP address</td><td>${login.ip}</td></tr>
</table>
<p>If you do not recognize this login, change your password at once and tell an administrator of the organization.</p>
<p style="color:#555555;font-size:13px">You can turn these emails off in your <a href="${settingsUrl}" style="color:#2f6fd1">notification settings</a>.</p>`;
  return { subject: title, body, html: emailDocument(title, markup) };
}
