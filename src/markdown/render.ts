// Zulip-flavoured Markdown: the public entry points. Pure: all data comes in the context.
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";
import { blockquoteRule, listRule, paragraphRule, stashRule } from "./blocks.ts";
import { codeBlockHtml, DEFAULT_HIGHLIGHT_MAX_CHARS } from "./code.ts";
import { registerEnv, type RenderEnv } from "./env.ts";
import { escapeAttr, escapeText } from "./escape.ts";
import { processFences } from "./fences.ts";
import { backticksRule, channelLinkRule, mentionRule, newlineRule, strikethroughRule, texRule, timeRule, underscoreRule } from "./inline.ts";
import { linkifierBudget } from "./linkifiers.ts";
import { previewRule } from "./previews.ts";
import { TEX_BUDGET_PER_MESSAGE } from "./tex.ts";
import { textPassRule } from "./textpass.ts";
import type { RenderContext, RenderResult } from "./types.ts";
import { safeUrl } from "./urls.ts";

export { mentionCandidates } from "./mentions.ts";
export { topicKey } from "./types.ts";
export type { LinkChannel, Linkifier, MentionCandidates, MentionGroup, MentionUser, RealmEmoji, RenderContext, RenderResult } from "./types.ts";

function listOpen(tokens: Token[], idx: number): string {
  const start = tokens[idx].attrGet("start");
  const tagName = tokens[idx].tag;
  return start === null ? `<${tagName}>\n` : `<${tagName} start="${escapeAttr(String(start))}">\n`;
}

function createParser(): InstanceType<typeof MarkdownIt> {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: true });
  md.validateLink = (url) => safeUrl(url) !== null;
  md.normalizeLink = (url) => url;
  md.normalizeLinkText = (text) => text;
  md.disable(["fence", "reference", "html_block", "autolink", "html_inline", "image", "linkify", "replacements", "smartquotes", "strikethrough"]);
  md.block.ruler.at("list", listRule, { alt: ["paragraph", "blockquote"] });
  md.block.ruler.at("blockquote", blockquoteRule, { alt: ["paragraph", "blockquote", "list"] });
  md.block.ruler.at("paragraph", paragraphRule);
  md.block.ruler.before("table", "zulip_stash", stashRule, { alt: ["paragraph", "blockquote", "list"] });
  md.inline.ruler.at("backticks", backticksRule);
  md.inline.ruler.at("newline", newlineRule);
  md.inline.ruler.before("emphasis", "zulip_underscore", underscoreRule);
  md.inline.ruler.before("emphasis", "zulip_mention", mentionRule);
  md.inline.ruler.before("emphasis", "zulip_channel_link", channelLinkRule);
  md.inline.ruler.before("emphasis", "zulip_time", timeRule);
  md.inline.ruler.before("emphasis", "zulip_strikethrough", strikethroughRule);
  md.inline.ruler.before("emphasis", "zulip_tex", texRule);
  md.core.ruler.after("text_join", "zulip_text", textPassRule);
  md.core.ruler.after("zulip_text", "zulip_previews", previewRule);
  const rules = md.renderer.rules;
  rules.text = (tokens, idx) => escapeText(tokens[idx].content);
  rules.code_inline = (tokens, idx) => `<code>${escapeText(tokens[idx].content)}</code>`;
  rules.code_block = (tokens, idx) => codeBlockHtml(tokens[idx].content, "", { firstLineLanguage: false, highlightBudget: { chars: 0 } });
  rules.s_open = () => "<del>";
  rules.s_close = () => "</del>";
  rules.bullet_list_open = listOpen;
  rules.ordered_list_open = listOpen;
  rules.zulip_inline = (tokens, idx) => tokens[idx].content;
  rules.zulip_block = (tokens, idx) => tokens[idx].content;
  return md;
}

const MD = createParser();

function newEnv(ctx: RenderContext): RenderEnv {
  const env: RenderEnv = registerEnv({
    ctx,
    stash: [],
    depth: 0,
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    forbiddenGroups: new Map(),
    wildcard: { channel: false, topic: false },
    hasLink: false,
    hasImage: false,
    uploads: new Set(),
    previewedUrls: new Set(),
    linkifierBudget: linkifierBudget(),
    texBudget: TEX_BUDGET_PER_MESSAGE,
    highlightBudget: { chars: ctx.highlightMaxChars ?? DEFAULT_HIGHLIGHT_MAX_CHARS },
    renderFragment: (markdown) => MD.render(markdown, env),
  });
  return env;
}

/** Input hygiene: unify newlines; private-use placeholder characters can't come from users. */
function cleanInput(content: string): string {
  return content.replace(/\r\n?/g, "\n").replace(/[\uE000\uE001]/g, "\uFFFD");
}

/**
 * One line of prose that no Markdown rule or Zulip syntax acts on: letters, digits, spaces and
 * `,?!'`, a period only before a space or at the end (so no bare domain such as `example.com`),
 * not starting with a digit (an ordered list) or a space, not ending with a space. Linkifiers may
 * match any text, so only without them. Such content is one paragraph of its escaped text; most
 * chat lines are like it, and markdown-it took 37-43 us for such a line against under 1 us here.
 * test/unit/markdown-prose.test.ts checks it against the full renderer. Each test below is a
 * single character class or a plain search, so its cost is linear and it needs no stack
 * (a repeated group would backtrack one frame per character and overflow on huge input).
 */
const PROSE_FIRST = /^[\p{L}']/u;
const PROSE_CHARS = /^[\p{L}\p{N} ,?!'.]*$/u;
const PERIOD_BEFORE_NON_SPACE = /\.[^ ]/;

function isPlainProse(content: string, ctx: RenderContext): boolean {
  return (
    (ctx.linkifiers ?? []).length === 0 &&
    PROSE_FIRST.test(content) &&
    !content.endsWith(" ") &&
    PROSE_CHARS.test(content) &&
    !PERIOD_BEFORE_NON_SPACE.test(content)
  );
}

/** Renders a message's Markdown to Zulip's HTML and reports mentions and link facts. */
export function renderMessage(content: string, ctx: RenderContext): RenderResult {
  if (isPlainProse(content, ctx)) return renderResult(content, `<p>${escapeText(content)}</p>`, newEnv(ctx));
  return renderMarkdown(content, ctx);
}

/** renderMessage without the plain-prose shortcut: every message through markdown-it. */
export function renderMarkdown(content: string, ctx: RenderContext): RenderResult {
  const env = newEnv(ctx);
  return renderResult(content, MD.render(processFences(env, cleanInput(content)), env).replace(/\n$/, ""), env);
}

/** The rendering's HTML with what rendering `content` recorded in `env`. */
function renderResult(content: string, html: string, env: RenderEnv): RenderResult {
  return {
    html,
    mentionedUserIds: [...env.mentionedUserIds],
    mentionedGroupIds: [...env.mentionedGroupIds],
    forbiddenGroupMentions: [...env.forbiddenGroups].map(([id, name]) => ({ id, name })),
    wildcard: { ...env.wildcard },
    isMeMessage: content.startsWith("/me ") && html.startsWith("<p>/me "),
    hasLink: env.hasLink,
    hasImage: env.hasImage,
    hasAttachment: env.uploads.size > 0,
    linkedUploadPaths: [...env.uploads],
  };
}
