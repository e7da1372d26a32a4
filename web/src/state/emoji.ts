/**
 * Emoji for the picker, autocomplete and reactions: the server's unicode emoji names
 * (`server_emoji_data_url`, fetched once, when first needed) and the organization's custom
 * emoji (GET /realm/emoji, fetched again when a picker opens). Nothing is fetched until a picker, an autocomplete or a custom
 * emoji reaction needs it, so the first load stays small.
 */
import { signal } from "@preact/signals";
import { api } from "../api/client.ts";

/** One emoji as the picker and autocomplete offer it. */
export type EmojiChoice = {
  /** The name inserted and sent (canonical for unicode emoji). */
  name: string;
  /** Other names that find it. */
  aliases: readonly string[];
  emoji_code: string;
  reaction_type: "unicode_emoji" | "realm_emoji";
  /** The image of a custom emoji. */
  url?: string;
};

/** Zulip's popular emoji, offered first (upstream's picker and reaction bar). */
const POPULAR_CODES = ["1f44d", "1f389", "1f642", "2764", "1f6e0", "1f419"];
/** Smileys come before the rest, whose order is by code point. */
const SMILEYS_FIRST = /^1f6[0-4][0-9a-f]$/;

/** Every emoji, popular ones and smileys first (empty until loaded). */
export const emojiChoices = signal<readonly EmojiChoice[]>([]);
/** Custom emoji by id (emoji_code of realm_emoji reactions). */
export const realmEmojiById = signal<ReadonlyMap<string, { name: string; url: string }>>(new Map());
/** Why the emoji could not be loaded (null: no failure). */
export const emojiError = signal<string | null>(null);

let unicode: EmojiChoice[] | null = null;
let loading: Promise<void> | null = null;
let realmFetchedAt = 0;
/** The custom emoji are fetched again after this long, in ms (the event queue does not ask for realm_emoji events). */
const REALM_STALE_AFTER_MS = 30_000;

function rank(code: string): number {
  const popular = POPULAR_CODES.indexOf(code);
  if (popular >= 0) return popular;
  return SMILEYS_FIRST.test(code) ? POPULAR_CODES.length : POPULAR_CODES.length + 1;
}

async function loadUnicode(): Promise<EmojiChoice[]> {
  if (unicode !== null) return unicode;
  const data = await api.emojiData();
  const list: EmojiChoice[] = [];
  for (const [code, names] of Object.entries(data.code_to_names)) {
    if (names.length > 0) list.push({ name: names[0], aliases: names.slice(1), emoji_code: code, reaction_type: "unicode_emoji" });
  }
  list.sort((a, b) => rank(a.emoji_code) - rank(b.emoji_code) || (rank(a.emoji_code) === 0 ? 0 : a.emoji_code.localeCompare(b.emoji_code)));
  unicode = list;
  return list;
}

async function loadRealm(): Promise<EmojiChoice[]> {
  const res = await api.realmEmoji();
  const byId = new Map<string, { name: string; url: string }>();
  const list: EmojiChoice[] = [];
  for (const e of Object.values(res.emoji)) {
    byId.set(e.id, { name: e.name, url: e.source_url });
    if (!e.deactivated) list.push({ name: e.name, aliases: [], emoji_code: e.id, reaction_type: "realm_emoji", url: e.source_url });
  }
  realmEmojiById.value = byId;
  return list.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Loads the emoji lists: the unicode names once, the custom emoji again when `fresh` (a picker
 * opens), when older than REALM_STALE_AFTER_MS or after a failure. Resolves when they are there.
 */
export function ensureEmoji(fresh = false): Promise<void> {
  if (loading !== null && !fresh && Date.now() - realmFetchedAt < REALM_STALE_AFTER_MS) return loading;
  realmFetchedAt = Date.now();
  loading = Promise.all([loadUnicode(), loadRealm()]).then(
    ([uni, realm]) => {
      const popular = uni.filter((e) => POPULAR_CODES.includes(e.emoji_code));
      emojiChoices.value = [...popular, ...realm, ...uni.slice(popular.length)];
      emojiError.value = null;
    },
    () => {
      realmFetchedAt = 0;
      emojiError.value = "Could not load the emoji.";
    },
  );
  return loading;
}

/** Emoji whose name or alias matches a query: names starting with it first, then containing it. */
export function searchEmoji(query: string, limit: number): EmojiChoice[] {
  const q = query.trim().toLowerCase().replace(/[\s-]+/g, "_");
  const all = emojiChoices.value;
  if (q === "") return all.slice(0, limit);
  const starts: EmojiChoice[] = [];
  const contains: EmojiChoice[] = [];
  for (const e of all) {
    const names = [e.name, ...e.aliases];
    if (names.some((n) => n.startsWith(q) || n.includes(`_${q}`))) starts.push(e);
    else if (names.some((n) => n.includes(q))) contains.push(e);
    if (starts.length >= limit) break;
  }
  return [...starts, ...contains].slice(0, limit);
}

/** A reaction's emoji name for people: "thumbs up" for "thumbs_up". */
export function spokenEmojiName(name: string): string {
  return name.replace(/_/g, " ");
}
