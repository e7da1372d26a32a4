/**
 * The server's unicode emoji names, as `server_emoji_data_url` (FL 140) serves them to clients
 * for the emoji picker and autocomplete: `{"code_to_names": {code: [canonical, ...aliases]}}`,
 * built from the same data the Markdown renderer uses, so every name listed renders.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { codeFromUnified, unicodeEmojiCode, unicodeEmojiName } from "../../markdown/emoji-data.ts";

/** The document, ready to send: its JSON text and an entity tag for conditional requests. */
export type EmojiDataDocument = { body: string; etag: string };

/** The datasource names of each emoji (the renderer's source), as far as they parse. */
function datasourceNames(): Array<{ unified: string; names: string[] }> {
  const raw: unknown = createRequire(import.meta.url)("emoji-datasource/emoji.json");
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry: unknown) => {
    if (entry === null || typeof entry !== "object") return [];
    const fields: Record<string, unknown> = { ...entry };
    const { unified, short_names: names } = fields;
    if (typeof unified !== "string" || !Array.isArray(names)) return [];
    return [{ unified, names: names.filter((n): n is string => typeof n === "string") }];
  });
}

/**
 * Every emoji the renderer knows, its canonical name first; an alias is listed only if the
 * renderer maps it to that emoji (datasource spellings use "-", Zulip's "_").
 */
function codeToNames(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { unified, names } of datasourceNames()) {
    const code = codeFromUnified(unified);
    const canonical = unicodeEmojiName(code);
    if (canonical === undefined || code in out) continue;
    const aliases = names.flatMap((n) => [n, n.replaceAll("-", "_")]).filter((n) => n !== canonical && unicodeEmojiCode(n) === code);
    out[code] = [canonical, ...new Set(aliases)];
  }
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
