/**
 * HTML for email bodies, written as plain TypeScript: `html\`...\`` keeps the markup written in
 * the template and escapes every value put into it (names, addresses, organization names arrive
 * as text, never as markup), and `emailDocument` wraps a body in the page every email shares.
 */

/** Where an email comes from: the organization's name and the server's address (EXTERNAL_URL). */
export type Site = { realmName: string; url: string };

/** An email's content (outbox.ts adds the address it goes to): subject, plain text, and the HTML sent beside it. */
export type EmailContent = { subject: string; body: string; html: string };

/** Markup built by `html` (or a helper here): safe to put into more markup as it is. */
export class Markup {
  constructor(readonly html: string) {}
}

/** What a template may put into markup: text (escaped), numbers, or markup (kept). */
type Value = string | number | Markup | readonly Markup[];

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML text or attribute value: the five characters that could end either are escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function valueHtml(value: Value): string {
  if (value instanceof Markup) return value.html;
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return escapeHtml(value);
  return value.map((v) => v.html).join("");
}

/** A template of markup whose interpolated values are escaped (text) or kept (Markup). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += valueHtml(values[i]) + strings[i + 1];
  return new Markup(out);
}

/** A link shown as a button (the email's one action), with its address below for clients that show no buttons. */
export function actionLink(url: string, label: string): Markup {
  return html`<p style="margin:24px 0"><a href="${url}" style="background:#2f6fd1;border-radius:4px;color:#ffffff;display:inline-block;font-weight:bold;padding:10px 18px;text-decoration:none">${label}</a></p>
<p style="color:#555555;font-size:13px">Or open this address in your browser: <a href="${url}" style="color:#2f6fd1">${url}</a></p>`;
}

/** The whole HTML document of an email: its title (the subject) and body in one simple, readable column. */
export function emailDocument(title: string, body: Markup): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head>
<body style="background:#f4f4f4;margin:0;padding:24px">
<div style="background:#ffffff;border-radius:6px;color:#222222;font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;margin:0 auto;max-width:560px;padding:24px">
${body}
</div>
</body>
</html>
`.html;
}
