/**
 * The parts of a mail the test SMTP server received (smtp.ts keeps the body after the headers,
 * quoted-printable already undone): the plain text and the HTML of a multipart/alternative
 * message, each with its transfer encoding undone, or the whole body as text for a plain one.
 */
import assert from "node:assert/strict";
import type { Mail } from "./smtp.ts";

/** A mail's plain-text part, and its HTML part if it has one. */
export type MailParts = { text: string; html: string | null };

/** One MIME part: its headers (lower-cased names) and its content. */
function parsePart(raw: string): { headers: Map<string, string>; content: string } {
  const split = raw.indexOf("\n\n");
  const head = split < 0 ? raw : raw.slice(0, split);
  const content = split < 0 ? "" : raw.slice(split + 2);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\n[ \t]+/g, " ").split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const decoded = headers.get("content-transfer-encoding")?.toLowerCase() === "base64" ? Buffer.from(content.replace(/\s+/g, ""), "base64").toString("utf8") : content;
  return { headers, content: decoded.replace(/\n+$/, "") };
}

/** The text and HTML of `mail`. */
export function mailParts(mail: Mail): MailParts {
  const body = mail.body.replace(/\r\n/g, "\n");
  const boundary = /^--(\S+)$/m.exec(body)?.[1];
  if (boundary === undefined) return { text: body, html: null };
  const parts = body.split(`--${boundary}`).slice(1).filter((p) => !p.startsWith("--")).map((p) => parsePart(p.replace(/^\n/, "")));
  const ofType = (type: string) => parts.find((p) => (p.headers.get("content-type") ?? "").startsWith(type))?.content ?? null;
  const text = ofType("text/plain");
  assert.ok(text !== null, `the mail has a text/plain part:\n${mail.body}`);
  return { text, html: ofType("text/html") };
}

/** The first URL in `text` whose path starts with `path` (on `siteUrl`), as a URL. */
export function mailLink(text: string, siteUrl: string, path: string): URL {
  const escaped = `${siteUrl}${path}`.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`${escaped}[^\\s"<>]*`).exec(text);
  assert.ok(match, `a ${path} link in:\n${text}`);
  return new URL(match[0]);
}
