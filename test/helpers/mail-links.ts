/** Reading the links out of a mail's text in tests. */
import assert from "node:assert/strict";

/** The first URL in `text` whose path starts with `path` (on `siteUrl`), as a URL. */
export function mailLink(text: string, siteUrl: string, path: string): URL {
  const escaped = `${siteUrl}${path}`.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`${escaped}[^\\s"<>]*`).exec(text);
  assert.ok(match, `a ${path} link in:\n${text}`);
  return new URL(match[0]);
}
