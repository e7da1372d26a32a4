// Emoji: `:name:` syntax (realm emoji first, then unicode names, then Zulip's extra emoji),
// unicode emoji sequences, and optional emoticon translation.
import { codeFromUnified, unicodeEmojiCode, unicodeEmojiName } from "./emoji-data.ts";
import { escapeText, tag } from "./escape.ts";
import type { RealmEmoji } from "./types.ts";

/** Zulip's own extra emoji, available in every realm. */
const ZULIP_EXTRA_EMOJI = new Map([["zulip", "/static/generated/emoji/images/emoji/unicode/zulip.png"]]);

/** Emoticons and the emoji they become when the sender enabled translate_emoticons. */
const EMOTICONS = new Map([
  [":)", "smile"],
  ["(:", "smile"],
  [":(", "frown"],
  ["<3", "heart"],
  [":|", "expressionless"],
  [":/", "confused"],
  [";)", "wink"],
  [":D", "grinning"],
  [":o", "open_mouth"],
  [":O", "open_mouth"],
  [":p", "stuck_out_tongue"],
  [":P", "stuck_out_tongue"],
]);

/** HTML for a unicode emoji. */
function unicodeEmojiHtml(name: string, code: string): string {
  const label = name.replace(/_/g, " ");
  return tag("span", [["aria-label", label], ["class", `emoji emoji-${code}`], ["role", "img"], ["title", label]], escapeText(`:${name}:`));
}

function imageEmojiHtml(name: string, src: string): string {
  return tag("img", [["alt", `:${name}:`], ["class", "emoji"], ["src", src], ["title", name]], null);
}

/** HTML for `:name:`, or null when no such emoji exists. */
function namedEmojiHtml(name: string, realmEmoji: readonly RealmEmoji[]): string | null {
  const custom = realmEmoji.find((e) => e.name === name && !e.deactivated);
  if (custom !== undefined) return imageEmojiHtml(name, custom.source_url);
  const code = unicodeEmojiCode(name);
  if (code !== undefined) return unicodeEmojiHtml(name, code);
  const extra = ZULIP_EXTRA_EMOJI.get(name);
  return extra === undefined ? null : imageEmojiHtml(name, extra);
}

/** A piece of text: plain (to be escaped later) or ready HTML. */
type Piece = { text: string } | { html: string };

const EMOJI_SYNTAX = /:([\p{L}\p{N}_+-]+):/gu;
// One emoji: a pictograph (or keycap base) with optional FE0F/keycap/skin tone, ZWJ-joined;
// or a pair of regional indicators (a flag).
const UNICODE_EMOJI =
  /(?:[\u{1F1E6}-\u{1F1FF}]{2}|(?:\p{Extended_Pictographic}|[#*0-9](?=\uFE0F?\u20E3))\uFE0F?\u20E3?[\u{1F3FB}-\u{1F3FF}]?(?:\u200D\p{Extended_Pictographic}\uFE0F?[\u{1F3FB}-\u{1F3FF}]?)*)/gu;

function splitBy(pieces: Piece[], re: RegExp, render: (m: RegExpExecArray) => string | null): Piece[] {
  return pieces.flatMap((piece): Piece[] => {
    if (!("text" in piece)) return [piece];
    const out: Piece[] = [];
    let last = 0;
    for (const m of piece.text.matchAll(re)) {
      const html = render(m);
      if (html === null || m.index === undefined) continue;
      if (m.index > last) out.push({ text: piece.text.slice(last, m.index) });
      out.push({ html });
      last = m.index + m[0].length;
    }
    if (last < piece.text.length) out.push({ text: piece.text.slice(last) });
    return out;
  });
}

function emoticonRegex(): RegExp {
  const alternatives = [...EMOTICONS.keys()].map((e) => e.replace(/[()|/]/g, "\\$&")).join("|");
  return new RegExp(`(?<![^\\s.,!?])(?:${alternatives})(?![^\\s.,!?])`, "gu");
}

const EMOTICON_RE = emoticonRegex();

/** Replaces emoji syntax and unicode emoji in a text run. */
export function emojify(text: string, realmEmoji: readonly RealmEmoji[], translateEmoticons: boolean): Piece[] {
  let pieces: Piece[] = [{ text }];
  if (translateEmoticons) {
    pieces = splitBy(pieces, EMOTICON_RE, (m) => {
      const name = EMOTICONS.get(m[0]);
      return name === undefined ? null : namedEmojiHtml(name, realmEmoji);
    });
  }
  pieces = splitBy(pieces, EMOJI_SYNTAX, (m) => namedEmojiHtml(m[1], realmEmoji));
  return splitBy(pieces, UNICODE_EMOJI, (m) => {
    const code = codeFromUnified([...m[0]].map((c) => (c.codePointAt(0) ?? 0).toString(16)).join("-"));
    const name = unicodeEmojiName(code);
    return name === undefined ? null : unicodeEmojiHtml(name, code);
  });
}
