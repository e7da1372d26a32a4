/** File names: sanitising upload names for storage paths and guessing content types. */

const FALLBACK_NAME = "uploaded-file";

/**
 * A file name safe in a path segment and a URL, as Zulip's sanitize_name: NFKC-normalised, only
 * letters, digits, `_`, `.`, `-` and whitespace kept, whitespace and dash runs made one dash.
 */
export function sanitizeFileName(name: string): string {
  const kept = name.normalize("NFKC").replace(/[^\p{L}\p{N}_\s.-]/gu, "").trim();
  const dashed = kept.replace(/[-\s]+/gu, "-");
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

/** Headers for serving a stored file: its type (or a download type) and a safe disposition. */
export function servingHeaders(fileName: string, contentType: string | null): Record<string, string> {
  const type = contentType ?? GENERIC_TYPE;
  const inline = INLINE_TYPES.has(type);
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const disposition = `${inline ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
  return {
    "content-type": inline ? type : GENERIC_TYPE,
    "content-disposition": disposition,
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "cache-control": "private, max-age=86400",
  };
}
