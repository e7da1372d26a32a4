/**
 * Slack's message markup ("mrkdwn", as an export's `text` holds it) turned into Zulip Markdown,
 * and into plain text for topic names. Slack escapes `&`, `<` and `>` in text and wraps what it
 * links in angle brackets: `<@U123>` people, `<#C123|name>` channels, `<!here>` and the other
 * special mentions, `<https://x|label>` links. Its emphasis is single-character (`*bold*`,
 * `_italic_`, `~strike~`) and only counts at word edges; code spans and blocks are literal.
 * People become `@**Full Name|key**` placeholders (formats/foreign/organization.ts), channels
 * `#**name**`, the special mentions Zulip's `@**all**`.
 */

/** What the conversion looks up: a person's name and a channel's name by Slack id (null: unknown). */
export type MrkdwnNames = { person(id: string): string | null; channel(id: string): string | null };

/** Private-use characters around a protected piece's index (never in Slack text worth keeping). */
const OPEN = "\uE000";
const CLOSE = "\uE001";
const PROTECTED = /\uE000(\d+)\uE001/g;

/** Slack's three escapes, undone. */
export function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Pieces kept out of the emphasis pass (code, links, mentions), put back at the end. */
class Protector {
  readonly pieces: string[] = [];
  keep(text: string): string {
    this.pieces.push(text);
    return `${OPEN}${this.pieces.length - 1}${CLOSE}`;
  }
  restore(text: string): string {
    // Pieces may hold other pieces (a link's label with a mention): restore until none is left.
    let out = text;
    for (let i = 0; i < 4 && out.includes(OPEN); i += 1) out = out.replace(PROTECTED, (_, n: string) => this.pieces[Number(n)] ?? "");
    return out;
  }
}

/** An emphasis marker pair at word edges: the text between may not start or end with a space. */
function emphasis(marker: string): RegExp {
  const m = marker === "*" ? "\\*" : marker;
  return new RegExp(`(^|[\\s\\p{P}\\p{S}])(?<!${m})${m}(?![\\s${m}])([^${m}\\n]*?[^\\s${m}])${m}(?=$|[\\s\\p{P}\\p{S}])`, "gmu");
}

const BOLD = emphasis("*");
const ITALIC = emphasis("_");
const STRIKE = emphasis("~");

/** One `<...>` entity as Markdown (or as plain text for a topic name). */
function entity(inner: string, names: MrkdwnNames, plain: boolean): string {
  const bar = inner.indexOf("|");
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? null : unescapeSlack(inner.slice(bar + 1));
  if (target.startsWith("@")) {
    const id = target.slice(1);
    const name = names.person(id);
    if (name === null) return `@${label ?? id}`;
    return plain ? `@${name}` : `@**${name}|${id}**`;
  }
  if (target.startsWith("#")) {
    const name = names.channel(target.slice(1)) ?? label;
    if (name === null) return `#${target.slice(1)}`;
    return plain ? `#${name}` : `#**${name}**`;
  }
  if (target.startsWith("!")) {
    const command = target.slice(1);
    if (command === "here" || command === "channel" || command === "everyone") return plain ? `@${command}` : "@**all**";
    // <!subteam^S123|@team>, <!date^...|fallback>: their label is what Slack showed.
    return label ?? `@${command.split("^")[0]}`;
  }
  const url = unescapeSlack(target);
  if (plain) return label ?? url.replace(/^mailto:/, "");
  if (label === null || label === url) return url.startsWith("mailto:") ? url.slice("mailto:".length) : url;
  return `[${label.replace(/[[\]]/g, "\\$&")}](${url.replace(/[()\s]/g, encodeURIComponent)})`;
}

/** Turns `>>>` (the rest of the message is quoted) into a `>` on each following line. */
function blockQuotes(text: string): string {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith(">>>"));
  if (at === -1) return text;
  const rest = [lines[at].slice(3).replace(/^ /, ""), ...lines.slice(at + 1)].map((l) => `> ${l}`);
  return [...lines.slice(0, at), ...rest].join("\n");
}

/** Text outside code: entities protected, escapes undone, Slack's line conventions turned into Zulip's, emphasis converted. */
function convertProse(text: string, names: MrkdwnNames, p: Protector, plain: boolean): string {
  let out = text.replace(/`([^`\n]+)`/g, (_, code: string) => p.keep(plain ? unescapeSlack(code) : `\`${unescapeSlack(code)}\``));
  out = out.replace(/<([^<>\n]+)>/g, (_, inner: string) => p.keep(entity(inner, names, plain)));
  out = unescapeSlack(out);
  out = out.replace(/::skin-tone-\d:/g, ":");
  if (!plain) out = blockQuotes(out).replace(/^(\s*)[•◦▪]\s+/gm, "$1- ");
  out = out.replace(BOLD, (_, before: string, inner: string) => `${before}${plain ? inner : `**${inner}**`}`);
  out = out.replace(STRIKE, (_, before: string, inner: string) => `${before}${plain ? inner : `~~${inner}~~`}`);
  out = out.replace(ITALIC, (_, before: string, inner: string) => `${before}${plain ? inner : `*${inner}*`}`);
  return out;
}

/** A code block's content: escapes undone, the link wrappers Slack adds even there removed. */
function codeContent(code: string): string {
  return unescapeSlack(code.replace(/<((?:https?|mailto|ftp):[^<>|\n]+)(?:\|[^<>\n]*)?>/g, "$1")).replace(/^\n+|\n+$/g, "");
}

/** Converts Slack's `text` to Zulip Markdown. */
export function mrkdwnToMarkdown(text: string, names: MrkdwnNames): string {
  const p = new Protector();
  const parts = text.split(/```([\s\S]*?)```/);
  const out: string[] = [];
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      // Zulip's fences stand on lines of their own; Slack's may sit inside a line.
      const body = codeContent(part);
      const fence = body.includes("```") ? "~~~~" : "```";
      out.push(`\n${fence}\n${body}\n${fence}\n`);
    } else {
      out.push(convertProse(part, names, p, false));
    }
  });
  return p.restore(out.join("")).replace(/^\n+|\s+$/g, "").replace(/\n{3,}/g, "\n\n");
}

/** Converts Slack's `text` to plain text (mentions as `@Name`, links as their label, no emphasis). */
export function mrkdwnToPlain(text: string, names: MrkdwnNames): string {
  const p = new Protector();
  const prose = text.split(/```([\s\S]*?)```/).map((part, i) => (i % 2 === 1 ? codeContent(part) : convertProse(part, names, p, true)));
  return p.restore(prose.join(" "));
}
