/**
 * The parts of an email the test SMTP server received (test/helpers/smtp.ts keeps the raw
 * body, quoted-printable already undone): the plain text and the HTML of a multipart message,
 * and when each mail arrived.
 */
import type { Mail, TestSmtp } from "./smtp.ts";

/** A mail's plain-text and HTML parts ("" for a part it lacks; a single-part mail is its text). */
export function mailParts(mail: Mail): { text: string; html: string } {
  const lines = mail.body.split(/\r?\n/);
  const delimiter = lines.find((l) => /^--\S+$/.test(l));
  if (delimiter === undefined) return { text: mail.body, html: "" };
  const parts: string[][] = [];
  let current: string[] | null = null;
  for (const line of lines) {
    if (line === delimiter || line === `${delimiter}--`) {
      current = [];
      parts.push(current);
    } else current?.push(line);
  }
  const out = { text: "", html: "" };
  for (const part of parts) {
    const blank = part.indexOf("");
    if (blank < 0) continue;
    const headers = part.slice(0, blank).join("\n").toLowerCase();
    let content = part.slice(blank + 1).join("\n");
    if (headers.includes("content-transfer-encoding: base64")) content = Buffer.from(content.replace(/\s+/g, ""), "base64").toString("utf8");
    if (headers.includes("content-type: text/plain")) out.text = content;
    if (headers.includes("content-type: text/html")) out.html = content;
  }
  return out;
}

/** Records when each mail `smtp` accepts from now on arrives (Date.now()), by mail. */
export function recordArrivals(smtp: TestSmtp): Map<Mail, number> {
  const arrivals = new Map<Mail, number>();
  const push = smtp.mails.push.bind(smtp.mails);
  smtp.mails.push = (...mails: Mail[]) => {
    for (const mail of mails) arrivals.set(mail, Date.now());
    return push(...mails);
  };
  return arrivals;
}
