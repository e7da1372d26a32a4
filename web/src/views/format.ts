/** Dates and times as the feed shows them, in the browser's locale and the user's 12/24-hour choice. */

/** "14:05" or "2:05 PM". */
export function timeOfDay(seconds: number, twentyFourHour: boolean): string {
  return new Date(seconds * 1000).toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit", hour12: !twentyFourHour });
}

/** "Today", "Yesterday", or "Mon, Nov 24" (with the year when not this year). */
export function dayLabel(seconds: number, now = new Date()): string {
  const date = new Date(seconds * 1000);
  const day = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const diffDays = Math.round((day(now) - day(date)) / 86_400_000);
  if (diffDays === 0) return "Today";
  if (diffDays === 1) return "Yesterday";
  return date.toLocaleDateString(undefined, { weekday: "short", month: "short", day: "numeric", ...(date.getFullYear() === now.getFullYear() ? {} : { year: "numeric" }) });
}

/** The full date and time, for tooltips and the datetime attribute's readers. */
export function fullTime(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: "full", timeStyle: "short" });
}

/** A Unicode emoji from Zulip's emoji_code ("1f44d" or "1f468-200d-1f4bb"). */
export function emojiFromCode(code: string): string | null {
  const points = code.split("-").map((h) => Number.parseInt(h, 16));
  return points.every((p) => Number.isInteger(p) && p > 0 && p <= 0x10ffff) ? String.fromCodePoint(...points) : null;
}

/**
 * The server renders Unicode emoji as `<span class="emoji emoji-1f389" ...>:tada:</span>` for
 * sprite sheets; the app shows the character itself instead of the name.
 */
export function withEmojiGlyphs(html: string): string {
  return html.replace(/(<span [^>]*class="emoji emoji-([0-9a-f-]+)"[^>]*>):[^<:]+:(<\/span>)/g, (whole, open: string, code: string, close: string) => {
    const glyph = emojiFromCode(code);
    return glyph === null ? whole : `${open}${glyph}${close}`;
  });
}
