// URL policy: which link targets may be emitted, and how realm-local links are shortened.

/** Schemes upstream lets through in links; anything else renders the source text literally. */
const SAFE_SCHEMES = new Set(["http", "https", "ftp", "mailto", "tel", "sms"]);

/**
 * Returns the URL if it is safe to put in an href/src, else null. Control characters and
 * whitespace are rejected outright because browsers drop them inside schemes ("java\tscript:").
 */
export function safeUrl(url: string): string | null {
  if (url === "" || /[\u0000-\u0020\u007f-\u009f]/.test(url)) return null;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  if (scheme === null) {
    // No scheme: relative links are fine, but a colon before any / ? # would let a browser
    // guess one, so refuse those.
    const firstSpecial = url.search(/[/?#]/);
    const colon = url.indexOf(":");
    return colon !== -1 && (firstSpecial === -1 || colon < firstSpecial) ? null : url;
  }
  return SAFE_SCHEMES.has(scheme[1].toLowerCase()) ? url : null;
}

/** Rewrites `https://realm/#narrow/...` to the fragment-only form upstream stores. */
export function realmRelative(url: string, realmUrl: string): string {
  const base = realmUrl.replace(/\/+$/, "");
  if (base !== "" && url.startsWith(`${base}/#`)) return url.slice(base.length + 1);
  return url;
}

/** The `/user_uploads/...` path an href points to on this realm, or null. */
export function uploadPath(url: string, realmUrl: string): string | null {
  const base = realmUrl.replace(/\/+$/, "");
  const path = base !== "" && url.startsWith(`${base}/`) ? url.slice(base.length) : url;
  const m = /^\/user_uploads\/([^?#]+)/.exec(path);
  return m === null ? null : m[1];
}

/** Zulip's hash-component encoding: percent-encoding (but "*") with "." standing in for "%". */
export function encodeHashComponent(text: string): string {
  return encodeURIComponent(text)
    .replace(/[.!'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%/g, ".");
}

/** The `#narrow/channel/ID-name` path of a channel. */
export function channelNarrow(id: number, name: string): string {
  return `#narrow/channel/${encodeHashComponent(`${id}-${name.replace(/ /g, "-")}`)}`;
}
