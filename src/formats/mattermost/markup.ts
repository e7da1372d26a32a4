/**
 * Mattermost's message markup in Zulip Markdown. Mattermost writes Markdown already; what differs
 * is converted, outside code (fenced blocks and inline code spans are left as written):
 *
 * - `@username` -> `@**Full Name|username**` (the placeholder the shared converter resolves to a
 *   Zulip mention), for people of the organization only; a trailing `.`, `-` or `_` that is not
 *   part of a known username is punctuation;
 * - `@all` -> `@**all**`; `@channel` and `@here` -> `@**channel**` (Zulip has no mention of only
 *   the people online, so @here notifies the whole channel, as upstream's converter does);
 * - `~channel-name` -> `#**Channel display name**` for the team's channels;
 * - `:emoji_name:` -> Zulip's name of the same emoji (emoji-names.ts);
 * - `![alt](url)` -> `[alt](url)` (Zulip previews linked images itself, it has no image syntax);
 * - `__bold__` -> `**bold**` and `_italic_` -> `*italic*` (Zulip keeps underscores literal).
 */
import { zulipEmojiName } from "./emoji-names.ts";

/** What a message's markup can refer to: people by username, the team's channels by name, custom emoji. */
export type MarkupContext = {
  /** username -> full name, of the people imported. */
  people: ReadonlyMap<string, string>;
  /** Mattermost channel name (the URL one) -> the channel's name after the import. */
  channels: ReadonlyMap<string, string>;
  customEmoji: ReadonlySet<string>;
};

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The text split into pieces that are code (kept) and prose (converted), in order. */
function splitCode(text: string): Array<{ code: boolean; text: string }> {
  const pieces: Array<{ code: boolean; text: string }> = [];
  const lines = text.split("\n");
  let prose: string[] = [];
  const flushProse = () => {
    if (prose.length > 0) pieces.push(...splitInlineCode(prose.join("\n") + "\n"));
    prose = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (open === null) {
      prose.push(lines[i]);
      continue;
    }
    flushProse();
    const marker = open[1];
    const block = [lines[i]];
    while (++i < lines.length) {
      block.push(lines[i]);
      const close = FENCE.exec(lines[i]);
      if (close !== null && close[1][0] === marker[0] && close[1].length >= marker.length && lines[i].trim() === close[1]) break;
    }
    pieces.push({ code: true, text: block.join("\n") + "\n" });
  }
  flushProse();
  // Every piece ended with a newline; the text's own last line did not.
  const last = pieces[pieces.length - 1];
  if (last !== undefined) last.text = last.text.slice(0, -1);
  return pieces;
}

/** Inline code spans (a run of backticks up to the next run of the same length) apart from prose. */
function splitInlineCode(text: string): Array<{ code: boolean; text: string }> {
  const pieces: Array<{ code: boolean; text: string }> = [];
  let at = 0;
  let proseStart = 0;
  while (at < text.length) {
    const open = text.indexOf("`", at);
    if (open < 0) break;
    let run = open;
    while (text[run] === "`") run++;
    const ticks = text.slice(open, run);
    const close = new RegExp(`(?<!\`)${ticks}(?!\`)`, "g");
    close.lastIndex = run;
    const found = close.exec(text);
    if (found === null) {
      at = run;
      continue;
    }
    if (open > proseStart) pieces.push({ code: false, text: text.slice(proseStart, open) });
    pieces.push({ code: true, text: text.slice(open, found.index + ticks.length) });
    at = proseStart = found.index + ticks.length;
  }
  if (proseStart < text.length) pieces.push({ code: false, text: text.slice(proseStart) });
  return pieces;
}

/** The longest prefix of `candidate` that `known` holds, dropping trailing punctuation (`.`, `-`, `_`). */
function knownPrefix(candidate: string, known: (name: string) => boolean): string | null {
  let name = candidate;
  while (name.length > 0) {
    if (known(name)) return name;
    if (!/[._-]$/.test(name)) return null;
    name = name.slice(0, -1);
  }
  return null;
}

const WILDCARDS: ReadonlyMap<string, string> = new Map([["all", "all"], ["channel", "channel"], ["here", "channel"]]);

function convertProse(text: string, ctx: MarkupContext): string {
  // Emphasis and emoji first: the mentions and channel links written after them hold names
  // (with underscores or colons) that must stay as they are.
  return text
    .replace(/!\[([^\]\n]*)\]\(([^)\s]+)\)/g, "[$1]($2)")
    .replace(/(?<![\w\\])__(?=\S)([^\n]*?\S)__(?!\w)/g, "**$1**")
    .replace(/(?<![\w\\*_])_(?=[^\s_])([^_\n]*?[^\s_\\])_(?![\w_])/g, "*$1*")
    .replace(/(?<!\w):([a-z0-9_+-]+):/g, (_whole: string, name: string) => `:${zulipEmojiName(name, ctx.customEmoji)}:`)
    .replace(/(?<![\w.\-/@:])@([a-z0-9][a-z0-9._-]*)/gi, (whole: string, raw: string) => {
      const lower = raw.toLowerCase();
      const name = knownPrefix(lower, (n) => ctx.people.has(n) || WILDCARDS.has(n));
      if (name === null) return whole;
      const rest = raw.slice(name.length);
      const wildcard = ctx.people.has(name) ? undefined : WILDCARDS.get(name);
      if (wildcard !== undefined) return `@**${wildcard}**${rest}`;
      return `@**${ctx.people.get(name)}|${name}**${rest}`;
    })
    .replace(/(?<=^|[\s(])~([a-z0-9][a-z0-9_-]*)/g, (whole: string, raw: string) => {
      const name = knownPrefix(raw, (n) => ctx.channels.has(n));
      return name === null ? whole : `#**${ctx.channels.get(name)}**${raw.slice(name.length)}`;
    });
}

/** A Mattermost message's text in Zulip Markdown. */
export function convertMarkup(text: string, ctx: MarkupContext): string {
  return splitCode(text)
    .map((piece) => (piece.code ? piece.text : convertProse(piece.text, ctx)))
    .join("");
}
