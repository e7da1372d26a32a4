// Unicode emoji names and code points, from emoji-datasource, adjusted to the names Zulip
// clients know. Codes are Zulip's form: lower-case hex code points joined by "-", without FE0F.
import { createRequire } from "node:module";

/**
 * Code points whose Zulip name differs from emoji-datasource's short name (canonical name
 * first). Only names verified against upstream's rendering corpus and API docs are listed;
 * the datasource names stay as aliases unless another emoji now owns them.
 */
const ZULIP_NAMES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["1f642", ["smile", "slightly_smiling_face"]],
  ["1f604", ["big_smile"]],
  ["1f641", ["frown", "slightly_frowning_face"]],
  ["1f4a9", ["poop", "hankey", "shit"]],
  ["1f408", ["cat", "cat2"]],
  ["1f415", ["dog", "dog2"]],
  ["1f407", ["rabbit", "rabbit2"]],
  ["1f384", ["holiday_tree", "christmas_tree"]],
  ["2797", ["division", "heavy_division_sign"]],
  ["1f916", ["robot", "robot_face"]],
  ["2b06", ["up", "arrow_up"]],
  ["1f95d", ["kiwi", "kiwifruit"]],
  ["1f947", ["gold", "first_place_medal"]],
  ["1f373", ["cooking"]],
  ["1f44d", ["+1", "thumbs_up", "thumbsup"]],
];

interface DatasourceEntry {
  unified: string;
  name: string | null;
  short_names: string[];
}

function isEntry(value: unknown): value is DatasourceEntry {
  if (typeof value !== "object" || value === null) return false;
  const v: Record<string, unknown> = { ...value };
  return typeof v.unified === "string" && Array.isArray(v.short_names) && v.short_names.every((n) => typeof n === "string");
}

/** Zulip's emoji code for a datasource "unified" value or a string of code points. */
export function codeFromUnified(unified: string): string {
  return unified
    .toLowerCase()
    .split("-")
    .filter((part) => part !== "fe0f")
    .map((part) => part.padStart(4, "0"))
    .join("-");
}

/** Zulip-style name from a datasource short name: words joined by "_", skin tones dropped. */
function zulipName(shortName: string): string | null {
  if (shortName.startsWith("skin-tone-")) return null;
  return shortName.replace(/(?<=[a-z0-9])-(?=[a-z0-9])/g, "_");
}

function load(): { nameToCode: Map<string, string>; codeToName: Map<string, string>; codeToNames: Map<string, string[]> } {
  const require = createRequire(import.meta.url);
  const raw: unknown = require("emoji-datasource/emoji.json");
  const entries = Array.isArray(raw) ? raw.filter(isEntry) : [];
  const overridden = new Map(ZULIP_NAMES);
  const claimed = new Set(ZULIP_NAMES.flatMap(([, names]) => names));
  const nameToCode = new Map<string, string>();
  const codeToName = new Map<string, string>();
  const listed = new Map<string, readonly string[]>();
  for (const entry of entries) {
    const code = codeFromUnified(entry.unified);
    const fromData = entry.short_names.map(zulipName).filter((n): n is string => n !== null && !claimed.has(n));
    const fallback = entry.name === null ? [] : [entry.name.toLowerCase().replace(/[^a-z0-9]+/g, "_")];
    const names = overridden.get(code) ?? (fromData.length > 0 ? fromData : fallback);
    if (names.length === 0 || entry.short_names.some((n) => n.startsWith("skin-tone-"))) continue;
    codeToName.set(code, names[0]);
    listed.set(code, names);
    for (const name of names) if (!nameToCode.has(name)) nameToCode.set(name, code);
  }
  // Each code's names that render as it (a name an earlier emoji took stays that emoji's).
  const codeToNames = new Map<string, string[]>();
  for (const [code, names] of listed) codeToNames.set(code, names.filter((name) => nameToCode.get(name) === code));
  return { nameToCode, codeToName, codeToNames };
}

const DATA = load();

/** The emoji code for a unicode emoji name, if the name exists. */
export function unicodeEmojiCode(name: string): string | undefined {
  return DATA.nameToCode.get(name);
}

/** The canonical name for an emoji code, if the code is a known emoji. */
export function unicodeEmojiName(code: string): string | undefined {
  return DATA.codeToName.get(code);
}

/** Every known emoji code with its names that render as it, the canonical name first (server_emoji_data_url's code_to_names). */
export function unicodeEmojiNames(): ReadonlyMap<string, readonly string[]> {
  return DATA.codeToNames;
}
