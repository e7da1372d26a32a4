/** File names: sanitising upload names for storage paths and guessing content types. */

const FALLBACK_NAME = "uploaded-file";

/**
 * Most file systems cap a path component at 255 bytes, and a stored upload's sanitized name is
 * the last component of its path (Zulip's MAX_FILE_NAME_LENGTH).
 */
export const MAX_FILE_NAME_BYTES = 255;

/**
 * Cuts a name to at most `maxBytes` UTF-8 bytes, keeping its extension when that leaves room
 * for the rest (Zulip's truncate_file_name); never splits a character.
 */
export function truncateFileName(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  const dot = name.lastIndexOf(".");
  let extension = dot > 0 ? name.slice(dot) : "";
  if (Buffer.byteLength(extension) >= maxBytes) extension = "";
  const stem = extension === "" ? name : name.slice(0, dot);
  return cutToBytes(stem, maxBytes - Buffer.byteLength(extension)) + extension;
}

/** The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, whole code points only. */
function cutToBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let out = "";
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > maxBytes) break;
    out += char;
  }
  return out;
}

/**
 * A file name safe in a path segment and a URL, as Zulip's sanitize_name: NFKC-normalised, only
 * letters, digits, `_`, `.`, `-` and whitespace kept, whitespace and dash runs made one dash,
 * and cut to MAX_FILE_NAME_BYTES after normalising (NFKC can make a name much longer).
 */
export function sanitizeFileName(name: string): string {
  const kept = name.normalize("NFKC").replace(/[^\p{L}\p{N}_\s.-]/gu, "").trim();
  const dashed = truncateFileName(kept.replace(/[-\s]+/gu, "-"), MAX_FILE_NAME_BYTES);
  return dashed === "" || dashed === "." || dashed === ".." ? FALLBACK_NAME : dashed;
}

const TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  apng: "image/apng",
  avif: "image/avif",
  gif: "image/gif",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  json: "application/json",
  zip: "application/zip",
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  wav: "audio/wav",
  ogg: "audio/ogg",
  mp4: "video/mp4",
  webm: "video/webm",
};

const GENERIC_TYPE = "application/octet-stream";

/** The type the client declared, or one guessed from the extension when it declared none. */
export function contentTypeFor(fileName: string, declared: string | undefined): string {
  const clean = (declared ?? "").split(";")[0].trim().toLowerCase();
  if (clean !== "" && clean !== GENERIC_TYPE) return clean;
  const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? "";
  return TYPES_BY_EXTENSION[ext] ?? GENERIC_TYPE;
}

/**
 * Types a browser may show inline (Zulip's INLINE_MIME_TYPES). Never HTML, SVG or XML: those
 * could run scripts on the server's origin, so they are always served as downloads.
 */
const INLINE_TYPES = new Set([
  "application/pdf",
  "audio/aac", "audio/flac", "audio/mp4", "audio/mpeg", "audio/wav", "audio/webm",
  "image/apng", "image/avif", "image/gif", "image/jpeg", "image/png", "image/webp",
  "text/plain",
  "video/mp4", "video/webm",
]);

/**
 * Zulip's policy for served uploads (its nginx uploads location): nothing may load or run but the
 * file's own inline styles, images and a PDF. No `sandbox`: browsers refuse to show a sandboxed PDF.
 */
export const UPLOAD_CSP = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; object-src 'self'; plugin-types application/pdf;";

/** Zulip's policy for avatar and custom emoji images (its user_avatars location), semicolon included. */
export const IMAGE_CSP = "default-src 'none'; img-src 'self'";

/**
 * Headers for serving a stored file: its type when a browser may show it inline, else a download
 * type with `attachment`; never sniffed, never framed, under UPLOAD_CSP.
 */
export function servingHeaders(fileName: string, contentType: string | null): Record<string, string> {
  const type = contentType ?? GENERIC_TYPE;
  const inline = INLINE_TYPES.has(type);
  // Bounded, so a 5,000-character original name cannot make a header clients refuse.
  const shown = truncateFileName(fileName, MAX_FILE_NAME_BYTES);
  const ascii = shown.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const disposition = `${inline ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(shown)}`;
  return {
    "content-type": inline ? type : GENERIC_TYPE,
    "content-disposition": disposition,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "content-security-policy": UPLOAD_CSP,
    "cache-control": "private, max-age=86400",
  };
}
