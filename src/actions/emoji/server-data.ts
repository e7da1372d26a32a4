/**
 * The server's unicode emoji names, as `server_emoji_data_url` (FL 140) serves them to clients
 * for the emoji picker and autocomplete: `{"code_to_names": {code: [canonical, ...aliases]}}`,
 * built from the same data the Markdown renderer uses, so every name listed renders.
 */
import { createHash } from "node:crypto";
import { unicodeEmojiNames } from "../../markdown/emoji-data.ts";

/** The document, ready to send: its JSON text and an entity tag for conditional requests. */
export type EmojiDataDocument = { body: string; etag: string };

/** Every emoji the renderer knows, with the names it renders, the canonical one first. */
function codeToNames(): Record<string, readonly string[]> {
  const out: Record<string, readonly string[]> = {};
  for (const [code, names] of unicodeEmojiNames()) if (names.length > 0) out[code] = names;
  return out;
}

let cached: EmojiDataDocument | null = null;

/** The emoji data document (built once: it changes only with the server's version). */
export function serverEmojiData(): EmojiDataDocument {
  if (cached === null) {
    const body = JSON.stringify({ code_to_names: codeToNames() });
    cached = { body, etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"` };
  }
  return cached;
}
