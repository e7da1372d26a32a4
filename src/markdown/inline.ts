// Inline rules for Zulip syntax: code spans without trimming, literal underscores, newlines
// that keep spacing, mentions, channel/topic links, <time:...> and $$math$$.
import type { StateInline } from "markdown-it";
import { envOf } from "./env.ts";
import { channelLinkHtml, groupMentionHtml, userMentionHtml } from "./mentions.ts";
import { inlineTexHtml } from "./tex.ts";
import { timestampHtml } from "./time.ts";

/** Characters after which a mention or channel link may start (or the start of the text). */
const MENTION_BOUNDARY = /[\s'"({[/<]/u;
const CHANNEL_BOUNDARY = /[\s'"(,:<]/u;

function atBoundary(state: StateInline, boundary: RegExp): boolean {
  return state.pos === 0 || boundary.test(state.src[state.pos - 1]);
}

function pushHtml(state: StateInline, html: string, length: number, silent: boolean): boolean {
  if (!silent) state.push("zulip_inline", "", 0).content = html;
  state.pos += length;
  return true;
}

/** `code` spans: a run of N backticks up to the next run of exactly N, on one line, untrimmed. */
export function backticksRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  let start = state.pos;
  if (src[start] !== "`") return false;
  let run = start;
  while (src[run] === "`") run++;
  const ticks = src.slice(start, run);
  const close = new RegExp(`(?<!\`)${ticks}(?!\`)`, "g");
  close.lastIndex = run;
  const m = close.exec(src);
  const body = m === null ? "" : src.slice(run, m.index);
  if (m === null || body === "" || body.includes("\n")) {
    if (!silent) state.pending += ticks;
    state.pos = run;
    return true;
  }
  if (!silent) {
    const token = state.push("code_inline", "code", 0);
    token.markup = ticks;
    token.content = body;
  }
  start = m.index + ticks.length;
  state.pos = start;
  return true;
}

/** Underscores never make emphasis in Zulip: consume them as text. */
export function underscoreRule(state: StateInline, silent: boolean): boolean {
  let end = state.pos;
  while (state.src[end] === "_") end++;
  if (end === state.pos) return false;
  if (!silent) state.pending += state.src.slice(state.pos, end);
  state.pos = end;
  return true;
}

/** Every newline is a line break (nl2br); surrounding spaces are kept. */
export function newlineRule(state: StateInline, silent: boolean): boolean {
  if (state.src[state.pos] !== "\n") return false;
  if (!silent) {
    state.pushPending();
    state.push("softbreak", "br", 0);
  }
  state.pos++;
  return true;
}

/** `@**user**`, `@_**user**`, `@*group*`, `@_*group*` and wildcards. */
export function mentionRule(state: StateInline, silent: boolean): boolean {
  if (state.src[state.pos] !== "@" || !atBoundary(state, MENTION_BOUNDARY)) return false;
  const env = envOf(state.env);
  const user = /@(_?)\*\*([^*]+)\*\*/y;
  user.lastIndex = state.pos;
  const u = user.exec(state.src);
  if (u !== null) {
    const html = userMentionHtml(env, u[2], u[1] === "_", !silent);
    return html !== null && pushHtml(state, html, u[0].length, silent);
  }
  const group = /@(_?)\*([^*]+)\*/y;
  group.lastIndex = state.pos;
  const g = group.exec(state.src);
  if (g === null) return false;
  const html = groupMentionHtml(env, g[2], g[1] === "_", !silent);
  return html !== null && pushHtml(state, html, g[0].length, silent);
}

/** `#**channel**`, `#**channel>topic**` and `#**channel>topic@message_id**`. */
export function channelLinkRule(state: StateInline, silent: boolean): boolean {
  if (state.src[state.pos] !== "#" || !atBoundary(state, CHANNEL_BOUNDARY)) return false;
  const re = /#\*\*([^*]+)\*\*/y;
  re.lastIndex = state.pos;
  const m = re.exec(state.src);
  if (m === null) return false;
  const html = channelLinkHtml(envOf(state.env).ctx, m[1]);
  return html !== null && pushHtml(state, html, m[0].length, silent);
}

/** `~~text~~` on one line, without `~` inside or around the markers. */
export function strikethroughRule(state: StateInline, silent: boolean): boolean {
  if (state.pos > 0 && state.src[state.pos - 1] === "~") return false;
  const re = /~~([^~\n]+?)~~(?!~)/y;
  re.lastIndex = state.pos;
  const m = re.exec(state.src);
  if (m === null) return false;
  if (!silent) {
    const end = state.posMax;
    state.push("s_open", "del", 1);
    state.pos += 2;
    state.posMax = state.pos + m[1].length;
    state.md.inline.tokenize(state);
    state.posMax = end;
    state.push("s_close", "del", -1);
  }
  state.pos = re.lastIndex;
  return true;
}

/** `<time:...>` timestamps. */
export function timeRule(state: StateInline, silent: boolean): boolean {
  const re = /<time:([^>]*?)>/y;
  re.lastIndex = state.pos;
  const m = re.exec(state.src);
  return m !== null && pushHtml(state, timestampHtml(m[1]), m[0].length, silent);
}

/** `$$tex$$` on one line; the body may not start with `_` or `$`, and `\$` is allowed inside. */
export function texRule(state: StateInline, silent: boolean): boolean {
  if (state.pos > 0 && state.src[state.pos - 1] === "$") return false;
  const re = /\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)/y;
  re.lastIndex = state.pos;
  const m = re.exec(state.src);
  if (m === null) return false;
  // Typeset only for output: markdown-it also runs rules silently, to measure.
  return pushHtml(state, silent ? "" : inlineTexHtml(envOf(state.env), m[1]), m[0].length, silent);
}
