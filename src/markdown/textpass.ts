// Post-inline pass over text tokens: bare links and linkifiers become links, then emoji; plus
// upstream's nesting of ***x*** as <strong><em> and its handling of empty link text.
import type { StateCore, Token } from "markdown-it";
import { findAutolinks, type FoundLink } from "./autolink.ts";
import { emojify } from "./emoji.ts";
import { envOf, type RenderEnv } from "./env.ts";
import { findLinkifierLinks, overlapsAny } from "./linkifiers.ts";
import { realmRelative } from "./urls.ts";

type TokenClass = StateCore["Token"];

function textTokens(T: TokenClass, env: RenderEnv, text: string): Token[] {
  return emojify(text, env.ctx.realmEmoji ?? [], env.ctx.translateEmoticons === true).map((piece) => {
    const token = "text" in piece ? new T("text", "", 0) : new T("zulip_inline", "", 0);
    token.content = "text" in piece ? piece.text : piece.html;
    return token;
  });
}

function linkTokens(T: TokenClass, env: RenderEnv, link: FoundLink, isLinkifier: boolean): Token[] {
  const open = new T("link_open", "a", 1);
  open.attrs = [["href", realmRelative(link.href, env.ctx.realmUrl)]];
  if (isLinkifier) open.attrs.push(["title", link.href]);
  open.markup = "linkify";
  const text = new T("text", "", 0);
  text.content = link.text;
  return [open, text, new T("link_close", "a", -1)];
}

/** Splits one text token into text, emoji and link tokens. */
function expandText(T: TokenClass, env: RenderEnv, text: string, inLink: boolean, atStart: boolean): Token[] {
  if (inLink) return textTokens(T, env, text);
  const auto = findAutolinks(text, atStart);
  const linkified = findLinkifierLinks(text, env.ctx.linkifiers ?? [], env.linkifierBudget).filter((l) => !overlapsAny(auto, l.start, l.end));
  const links = [...auto.map((l) => ({ l, fromLinkifier: false })), ...linkified.map((l) => ({ l, fromLinkifier: true }))];
  links.sort((a, b) => a.l.start - b.l.start);
  const out: Token[] = [];
  let last = 0;
  for (const { l, fromLinkifier } of links) {
    if (l.start > last) out.push(...textTokens(T, env, text.slice(last, l.start)));
    out.push(...linkTokens(T, env, l, fromLinkifier));
    last = l.end;
  }
  if (last < text.length) out.push(...textTokens(T, env, text.slice(last)));
  return out;
}

/** `[](url)` and `[  ](url)` show the URL; realm URLs become fragment links. */
function fixMarkdownLink(T: TokenClass, env: RenderEnv, children: Token[], open: number): void {
  const href = String(children[open].attrGet("href") ?? "");
  children[open].attrSet("href", realmRelative(href, env.ctx.realmUrl));
  let close = open + 1;
  while (close < children.length && children[close].type !== "link_close") close++;
  const inner = children.slice(open + 1, close);
  if (inner.every((t) => t.type === "text" && t.content.trim() === "")) {
    const text = new T("text", "", 0);
    text.content = href;
    children.splice(open + 1, close - open - 1, text);
  }
}

/** Turns em(strong(x)) into strong(em(x)) as upstream nests `***x***`. */
function swapStrongEm(children: Token[]): void {
  for (let i = 0; i + 1 < children.length; i++) {
    if (children[i].type !== "em_open" || children[i + 1].type !== "strong_open") continue;
    let depth = 0;
    let j = i + 1;
    for (; j < children.length; j++) {
      if (children[j].type === "strong_open") depth++;
      if (children[j].type === "strong_close" && --depth === 0) break;
    }
    if (j + 1 >= children.length || children[j + 1].type !== "em_close") continue;
    for (const [a, b] of [[i, i + 1], [j, j + 1]]) {
      const [x, y] = [children[a], children[b]];
      children[a] = y;
      children[b] = x;
    }
  }
}

/** Upstream's emphasis never spans lines: such pairs go back to literal asterisks. */
function revertMultilineEmphasis(children: Token[]): void {
  children.forEach((open, i) => {
    if (open.type !== "em_open" && open.type !== "strong_open") return;
    const closeType = open.type.replace("_open", "_close");
    let depth = 0;
    let j = i;
    for (; j < children.length; j++) {
      if (children[j].type === open.type) depth++;
      if (children[j].type === closeType && --depth === 0) break;
    }
    if (j === children.length || !children.slice(i, j).some((t) => t.type === "softbreak")) return;
    for (const t of [open, children[j]]) {
      t.type = "text";
      t.content = t.markup;
      t.nesting = 0;
    }
  });
}

/** Drops empty text tokens and joins adjacent ones. */
function joinText(T: TokenClass, children: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of children) {
    if (t.type === "text" && t.content === "") continue;
    const prev = out[out.length - 1];
    if (t.type === "text" && prev !== undefined && prev.type === "text") {
      const joined = new T("text", "", 0);
      joined.content = prev.content + t.content;
      out[out.length - 1] = joined;
    } else {
      out.push(t);
    }
  }
  return out;
}

function transformChildren(T: TokenClass, env: RenderEnv, original: Token[]): Token[] {
  revertMultilineEmphasis(original);
  const children = joinText(T, original);
  swapStrongEm(children);
  const out: Token[] = [];
  let linkDepth = 0;
  for (let i = 0; i < children.length; i++) {
    const t = children[i];
    if (t.type === "link_open") {
      fixMarkdownLink(T, env, children, i);
      linkDepth++;
    } else if (t.type === "link_close") {
      linkDepth--;
    }
    if (t.type !== "text") {
      out.push(t);
      continue;
    }
    const atStart = i === 0 || children[i - 1].type !== "text";
    out.push(...expandText(T, env, t.content, linkDepth > 0, atStart));
  }
  return out;
}

/** Core rule (after text_join). */
export function textPassRule(state: StateCore): void {
  const env = envOf(state.env);
  for (const block of state.tokens) {
    if (block.type === "inline" && block.children !== null) block.children = transformChildren(state.Token, env, block.children);
  }
}
