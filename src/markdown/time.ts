// `<time:...>` timestamps: Unix seconds, ISO 8601, or a human date like "Jun 5th 2017, 10:30PM"
// or "31 Dec 2017 5:30 am IST". Times without a zone are UTC, as upstream.
import { escapeText, tag } from "./escape.ts";

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** Common zone abbreviations, in minutes east of UTC. */
const ZONES = new Map([
  ["utc", 0], ["gmt", 0], ["z", 0], ["ist", 330], ["est", -300], ["edt", -240], ["cst", -360], ["cdt", -300],
  ["mst", -420], ["mdt", -360], ["pst", -480], ["pdt", -420], ["cet", 60], ["cest", 120], ["bst", 60],
  ["eet", 120], ["eest", 180], ["jst", 540], ["kst", 540], ["aest", 600], ["aedt", 660], ["nzst", 720],
]);

const MAX_YEAR = 9999;

function utcMillis(y: number, mo: number, d: number, h: number, mi: number, s: number, offsetMinutes: number): number | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59 || y < 1 || y > MAX_YEAR) return null;
  const ms = Date.UTC(y, mo - 1, d, h, mi, s) - offsetMinutes * 60_000;
  return new Date(Date.UTC(y, mo - 1, d)).getUTCDate() === d ? ms : null;
}

function parseIso(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(text);
  if (m === null) return null;
  let offset = 0;
  if (m[7] !== undefined && m[7].toUpperCase() !== "Z") {
    const hours = Number(m[7].slice(1, 3));
    const minutes = Number(m[7].slice(-2));
    if (hours > 23 || minutes > 59) return null;
    offset = (m[7][0] === "-" ? -1 : 1) * (hours * 60 + minutes);
  }
  return utcMillis(+m[1], +m[2], +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), offset);
}

/** "31 Dec 2017 5:30 am IST", "Jun 5th 2017, 10:30PM", "December 31, 2017". */
function parseHuman(text: string): number | null {
  const words = text.toLowerCase().replace(/,/g, " ").split(/\s+/).filter((w) => w !== "");
  let year: number | null = null;
  let month: number | null = null;
  let day: number | null = null;
  let hour = 0;
  let minute = 0;
  let offset = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const time = /^(\d{1,2}):(\d{2})(?::\d{2})?(am|pm)?$/.exec(w);
    const monthIndex = MONTHS.findIndex((m) => w.startsWith(m) && /^[a-z]+\.?$/.test(w));
    if (time !== null) {
      hour = Number(time[1]);
      minute = Number(time[2]);
      const meridiem = time[3] ?? (words[i + 1] === "am" || words[i + 1] === "pm" ? words[++i] : undefined);
      if (meridiem !== undefined && (hour < 1 || hour > 12)) return null;
      if (meridiem === "pm" && hour !== 12) hour += 12;
      if (meridiem === "am" && hour === 12) hour = 0;
    } else if (monthIndex !== -1 && month === null) {
      month = monthIndex + 1;
    } else if (/^\d{4}$/.test(w) && year === null) {
      year = Number(w);
    } else if (/^\d{1,2}(st|nd|rd|th)?$/.test(w) && day === null) {
      day = Number.parseInt(w, 10);
    } else if (ZONES.has(w)) {
      offset = ZONES.get(w) ?? 0;
    } else {
      return null;
    }
  }
  if (year === null || month === null || day === null) return null;
  return utcMillis(year, month, day, hour, minute, 0, offset);
}

/** The instant a timestamp denotes, in milliseconds, or null if it is not understood. */
function parseTimestamp(text: string): number | null {
  const trimmed = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) {
    const ms = Number(trimmed) * 1000;
    return Number.isFinite(ms) && new Date(ms).getUTCFullYear() <= MAX_YEAR ? ms : null;
  }
  return parseIso(trimmed) ?? parseHuman(trimmed);
}

/** HTML for `<time:text>`. */
export function timestampHtml(text: string): string {
  const ms = parseTimestamp(text);
  if (ms === null) return tag("span", [["class", "timestamp-error"]], escapeText(`Invalid time format: ${text}`));
  const iso = new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  return tag("time", [["datetime", iso]], escapeText(text));
}
