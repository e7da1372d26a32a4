// Inline previews of linked images and videos, after the paragraph holding the link (never
// inside quotes), and the link facts the caller stores (has_link, attachments).
import { createHmac } from "node:crypto";
import type { StateCore, Token } from "markdown-it";
import { envOf, type RenderEnv } from "./env.ts";
import { tag } from "./escape.ts";
import { uploadPath } from "./urls.ts";

const IMAGE_EXTENSIONS = [".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp"];
const VIDEO_EXTENSIONS = [".mp4", ".webm"];

function extensionKind(url: string): "image" | "video" | null {
  const path = url.replace(/[?#].*$/, "").toLowerCase();
  if (IMAGE_EXTENSIONS.some((e) => path.endsWith(e))) return "image";
  if (VIDEO_EXTENSIONS.some((e) => path.endsWith(e))) return "video";
  return null;
}

/** The URL the client should load for a previewed link, or null if it may not be previewed. */
function mediaSource(env: RenderEnv, href: string): string | null {
  const upload = uploadPath(href, env.ctx.realmUrl);
  if (upload !== null) return `/user_uploads/${upload}`;
  const camo = env.ctx.camo;
  if (camo === undefined || !/^https?:\/\//i.test(href)) return null;
  const digest = createHmac("sha1", camo.key).update(href).digest("hex");
  return `${camo.baseUrl}${digest}/${Buffer.from(href, "utf8").toString("hex")}`;
}

function previewHtml(env: RenderEnv, href: string, title: string | null): string | null {
  const kind = extensionKind(href);
  const src = kind === null ? null : mediaSource(env, href);
  if (src === null || env.previewedUrls.has(href)) return null;
  env.previewedUrls.add(href);
  if (kind === "image") {
    env.hasImage = true;
    const link = tag("a", [["href", href], ["title", title]], tag("img", [["src", src]], null));
    return tag("div", [["class", "message_inline_image"]], link);
  }
  const video = tag("video", [["data-video-original-url", href], ["preload", "metadata"], ["src", src]], "");
  return tag("div", [["class", "message_inline_image message_inline_video"]], tag("a", [["href", href], ["title", title]], video));
}

/** Links of an inline token: href, and the link text when it differs from the href. */
function linksOf(inline: Token): Array<{ href: string; title: string | null }> {
  const children = inline.children ?? [];
  const links: Array<{ href: string; title: string | null }> = [];
  children.forEach((t, i) => {
    if (t.type !== "link_open") return;
    const href = String(t.attrGet("href") ?? "");
    let text = "";
    for (let j = i + 1; j < children.length && children[j].type !== "link_close"; j++) text += children[j].content;
    links.push({ href, title: t.markup === "linkify" || text === href ? null : text });
  });
  return links;
}

/** True if the paragraph is nothing but one bare link (its preview replaces it). */
function onlyBareLink(inline: Token): boolean {
  const c = inline.children ?? [];
  return c.length === 3 && c[0].type === "link_open" && c[0].markup === "linkify" && c[2].type === "link_close";
}

/** Core rule (after the text pass). */
export function previewRule(state: StateCore): void {
  const env = envOf(state.env);
  const out: Token[] = [];
  let quoteDepth = 0;
  for (const token of state.tokens) {
    out.push(token);
    if (token.type === "blockquote_open") quoteDepth++;
    if (token.type === "blockquote_close") quoteDepth--;
    if (token.type === "inline") {
      for (const { href } of linksOf(token)) {
        env.hasLink = true;
        const upload = uploadPath(href, env.ctx.realmUrl);
        if (upload !== null) env.uploads.add(upload);
      }
    }
    if (token.type !== "paragraph_close" || quoteDepth > 0) continue;
    const inline = out[out.length - 2];
    const previews = linksOf(inline).map((l) => previewHtml(env, l.href, l.title)).filter((h): h is string => h !== null);
    if (previews.length === 0) continue;
    if (onlyBareLink(inline)) out.splice(out.length - 3, 3);
    const block = new state.Token("zulip_block", "", 0);
    block.content = previews.join("");
    out.push(block);
  }
  state.tokens = out;
}
