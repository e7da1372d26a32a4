/**
 * The compose box's autocomplete, as Zulip's typeahead: `@` (and `@_` for a silent mention)
 * suggests users and groups, `#` channels, `:` emoji (after two letters). `findTrigger` reads the
 * word being typed before the caret, `suggestionsFor` lists the matches, and `completion` gives
 * the Markdown that replaces the typed word (`@**Full Name**`, `@*group*`, `#**channel**`, `:name:`).
 */
import { emojiChoices, searchEmoji, type EmojiChoice } from "./emoji.ts";
import { userGroups } from "./groups.ts";
import { sortedSubscriptions, users } from "./store.ts";

/** The most suggestions shown at once. */
const MAX_SUGGESTIONS = 8;
/** Mentions and channel names may hold spaces: a query stops being one after this many characters. */
const MAX_QUERY_LENGTH = 40;
/** Emoji are suggested from this many letters on (Zulip's typeahead waits for two). */
const EMOJI_MIN_QUERY = 2;

/** What is being typed: its kind, the text after the sigil, and where the typed word starts. */
export type Trigger = { kind: "mention" | "channel" | "emoji"; silent: boolean; query: string; start: number };

/** One suggestion, with the text that replaces the typed word. */
export type Suggestion =
  | { kind: "user"; key: string; label: string; detail: string; userId: number; insert: string }
  | { kind: "group"; key: string; label: string; detail: string; insert: string }
  | { kind: "channel"; key: string; label: string; detail: string; color: string; insert: string }
  | { kind: "emoji"; key: string; label: string; detail: string; emoji: EmojiChoice; insert: string };

/** Zulip's wildcard mentions, offered once their first letter is typed. */
const WILDCARDS = [
  { name: "all", detail: "Notify everyone in the conversation" },
  { name: "everyone", detail: "Notify everyone in the conversation" },
  { name: "channel", detail: "Notify channel" },
  { name: "topic", detail: "Notify topic" },
];

const TRIGGER = /(?:^|[\s(])(@_?|#|:)([^\n@#:]*)$/;

/** The autocomplete trigger before the caret, or null. */
export function findTrigger(text: string, caret: number): Trigger | null {
  const before = text.slice(0, caret);
  const match = TRIGGER.exec(before);
  if (match === null) return null;
  const [, sigil, query] = match;
  if (query.length > MAX_QUERY_LENGTH || query.startsWith("*") || query.startsWith(" ")) return null;
  const start = caret - query.length - sigil.length;
  if (sigil === ":") return query.length >= EMOJI_MIN_QUERY && !/\s/.test(query) ? { kind: "emoji", silent: false, query, start } : null;
  return { kind: sigil === "#" ? "channel" : "mention", silent: sigil === "@_", query, start };
}

function matchesWords(name: string, query: string): boolean {
  const q = query.toLowerCase();
  const n = name.toLowerCase();
  return n.startsWith(q) || n.split(/\s+/).some((word) => word.startsWith(q));
}

function mentionSuggestions(trigger: Trigger): Suggestion[] {
  const prefix = trigger.silent ? "@_" : "@";
  const all = [...users.value.values()].filter((u) => u.is_active !== false);
  const nameCount = new Map<string, number>();
  for (const u of all) nameCount.set(u.full_name, (nameCount.get(u.full_name) ?? 0) + 1);
  const found: Suggestion[] = all
    .filter((u) => matchesWords(u.full_name, trigger.query) || u.email.toLowerCase().startsWith(trigger.query.toLowerCase()))
    .sort((a, b) => a.full_name.localeCompare(b.full_name))
    .map((u) => {
      // Upstream adds the id when two users share the name.
      const name = (nameCount.get(u.full_name) ?? 0) > 1 ? `${u.full_name}|${u.user_id}` : u.full_name;
      return { kind: "user", key: `u${u.user_id}`, label: u.full_name, detail: u.email, userId: u.user_id, insert: `${prefix}**${name}** ` };
    });
  const wildcards: Suggestion[] = trigger.silent
    ? []
    : WILDCARDS.filter((w) => w.name.startsWith(trigger.query.toLowerCase()) && trigger.query !== "").map((w) => ({ kind: "group", key: `w${w.name}`, label: w.name, detail: w.detail, insert: `@**${w.name}** ` }));
  const groups: Suggestion[] = [...userGroups.value.values()]
    .filter((g) => !g.is_system_group && !g.deactivated && matchesWords(g.name, trigger.query))
    .map((g) => ({ kind: "group", key: `g${g.id}`, label: g.name, detail: g.description || "User group", insert: `${prefix}*${g.name}* ` }));
  return [...found, ...wildcards, ...groups].slice(0, MAX_SUGGESTIONS);
}

function channelSuggestions(trigger: Trigger): Suggestion[] {
  return sortedSubscriptions.value
    .filter((s) => matchesWords(s.name, trigger.query))
    .slice(0, MAX_SUGGESTIONS)
    .map((s) => ({ kind: "channel", key: `c${s.stream_id}`, label: s.name, detail: s.description, color: s.color, insert: `#**${s.name}** ` }));
}

function emojiSuggestions(trigger: Trigger): Suggestion[] {
  if (emojiChoices.value.length === 0) return [];
  return searchEmoji(trigger.query, MAX_SUGGESTIONS).map((e) => ({ kind: "emoji", key: `e${e.reaction_type}${e.emoji_code}`, label: e.name, detail: "", emoji: e, insert: `:${e.name}: ` }));
}

/** The suggestions for a trigger, best first. */
export function suggestionsFor(trigger: Trigger): Suggestion[] {
  if (trigger.kind === "mention") return mentionSuggestions(trigger);
  if (trigger.kind === "channel") return channelSuggestions(trigger);
  return emojiSuggestions(trigger);
}
