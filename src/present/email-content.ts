/**
 * A message as a missed-message or digest email shows it (Zulip's build_message_list and its
 * helpers in zerver/lib/email_notifications.py): the rendered HTML made fit for a mail client
 * (links absolute, inline image previews dropped or, for a message that is only an image, turned
 * into a link, spoilers closed to their header, emoji as their characters since this server
 * serves no emoji images), and the Markdown source as the plain-text part (links as their URLs,
 * upload paths absolute, spoilers closed, every line quoted with "> "). Pure.
 */
import { DomUtils, parseDocument } from "htmlparser2";
import type { ChildNode, Document, Element } from "domhandler";
import { escapeAttr, escapeText } from "../markdown/escape.ts";

/** What stands in for a spoiler's hidden content. */
export const SPOILER_NOTE = "(Open the conversation to see the spoiler content)";

/** One message's two parts. */
export type EmailMessage = { html: string; plain: string };

const isElement = (node: ChildNode): node is Element => node.type === "tag";
/** Markup out: only the characters HTML needs escaped, the rest as UTF-8. */
const serialize = (node: ChildNode | ChildNode[] | Document) => DomUtils.getOuterHTML(node, { encodeEntities: "utf8" });
const classes = (el: Element): string[] => (el.attribs.class ?? "").split(/\s+/).filter(Boolean);

/** Every element under `root` (depth first). */
function elements(root: Document | Element): Element[] {
  return DomUtils.findAll(() => true, root.children);
}

/** An element to insert, built from markup this module writes (escaped). */
function fragment(markup: string): ChildNode[] {
  return parseDocument(markup).children;
}

/** `/path` and `#narrow/...` as absolute URLs of the site; others unchanged. */
function absolute(url: string, siteUrl: string): string {
  if (/^\/?#narrow\//.test(url)) return `${siteUrl}/${url.replace(/^\//, "")}`;
  if (url.startsWith("/") && !url.startsWith("//")) return `${siteUrl}${url}`;
  return url;
}

/** Zulip's relative_to_full_url: absolute links (a narrow link's title too), inline image previews handled. */
function fixLinksAndImages(root: Document, siteUrl: string): void {
  const blocks = root.children.filter(isElement);
  const previews = elements(root).filter((el) => classes(el).includes("message_inline_image"));
  if (blocks.length === 1 && previews[0] === blocks[0]) {
    // A message that is only an image: a link to it instead.
    const link = DomUtils.findOne((el) => el.name === "a", blocks[0].children);
    const href = absolute(link?.attribs.href ?? "", siteUrl);
    const title = link?.attribs.title;
    const p = fragment(`<p><a href="${escapeAttr(href)}" target="_blank"${title === undefined ? "" : ` title="${escapeAttr(title)}"`}>${escapeText(href)}</a></p>`);
    DomUtils.replaceElement(blocks[0], p[0]);
  } else {
    // The mail server cannot fetch the previews (they need the reader's session).
    for (const preview of previews) DomUtils.removeElement(preview);
  }
  for (const el of elements(root)) {
    for (const attr of ["href", "src"]) {
      const value = el.attribs[attr];
      if (value === undefined) continue;
      const full = absolute(value, siteUrl);
      if (full === value) continue;
      el.attribs[attr] = full;
      if (attr === "href" && /^\/?#narrow\//.test(value) && el.attribs.title !== undefined) el.attribs.title = full;
    }
  }
}

/** "1f468-200d-1f469" as its characters; "" for anything else. */
function emojiFromCode(code: string): string {
  const points = code.split("-").map((hex) => Number.parseInt(hex, 16));
  if (points.some((p) => !Number.isInteger(p) || p < 0 || p > 0x10ffff)) return "";
  return String.fromCodePoint(...points);
}

/** Zulip's fix_emojis: Unicode emoji as their characters, custom emoji images at a text's height. */
function fixEmoji(root: Document): void {
  for (const el of elements(root)) {
    const cls = classes(el);
    if (!cls.includes("emoji")) continue;
    if (el.name === "img") {
      delete el.attribs.class;
      el.attribs.style = "height: 20px;";
      continue;
    }
    const code = cls.find((c) => c.startsWith("emoji-"))?.slice("emoji-".length) ?? "";
    const text = emojiFromCode(code) || DomUtils.textContent(el);
    const title = el.attribs.title;
    DomUtils.replaceElement(el, fragment(`<span${title === undefined ? "" : ` title="${escapeAttr(title)}"`}>${escapeText(text)}</span>`)[0]);
  }
}

/** Zulip's fix_spoilers_in_html: a spoiler shows its header and a note, not its content. */
function fixSpoilers(root: Document): void {
  for (const block of elements(root).filter((el) => classes(el).includes("spoiler-block"))) {
    const header = DomUtils.findOne((el) => classes(el).includes("spoiler-header"), block.children);
    const headerText = header ? DomUtils.textContent(header).trim() : "";
    const note = `<span class="spoiler-title" title="${escapeAttr(SPOILER_NOTE)}">${escapeText(SPOILER_NOTE)}</span>`;
    DomUtils.replaceElement(block, fragment(`<p>${headerText === "" ? "" : `${escapeText(headerText)} `}${note}</p>`)[0]);
  }
}

/** A message's rendered HTML as an email shows it. */
export function emailHtml(renderedHtml: string, siteUrl: string): string {
  const root = parseDocument(renderedHtml);
  fixLinksAndImages(root, siteUrl);
  fixEmoji(root);
  fixSpoilers(root);
  return `<div>${serialize(root)}</div>`;
}

/** A fence line: its fence and language (Zulip's FENCE_RE, simplified to what opens and closes a block). */
const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`~]*)/;

/** Zulip's fix_spoilers_in_text: a spoiler block keeps its fences and says its content is hidden. */
function hideSpoilers(markdown: string): string {
  const out: string[] = [];
  let open: string | null = null;
  for (const line of markdown.split("\n")) {
    const fence = FENCE.exec(line);
    if (fence && open === null && fence[2] === "spoiler") {
      open = fence[1];
      out.push(line, SPOILER_NOTE);
    } else if (fence && open !== null && fence[1] === open && fence[2] === "") {
      open = null;
      out.push(line);
    } else if (open === null) {
      out.push(line);
    }
  }
  return out.join("\n");
}

/** A message's Markdown as the plain-text part shows it. */
export function emailPlain(markdown: string, siteUrl: string): string {
  const text = hideSpoilers(markdown)
    // Zulip's fix_plaintext_image_urls: [name](url) as the url.
    .replace(/\[(\S*)\]\((\S*)\)/g, "$2")
    .replace(/(^|[\s(])\/user_uploads\//g, `$1${siteUrl}/user_uploads/`);
  return text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}

/** The message's two parts for the email. */
export function emailMessage(message: { content: string; rendered_content: string }, siteUrl: string): EmailMessage {
  return { html: emailHtml(message.rendered_content, siteUrl), plain: emailPlain(message.content, siteUrl) };
}

/** Zulip's prepend_sender_to_message: the sender's name, bold, starting the first paragraph ("Name:" above the text). */
export function withSender(message: EmailMessage, sender: string): EmailMessage {
  const plain = `${sender}:\n${message.plain}`;
  const root = parseDocument(message.html);
  const bold = fragment(`<b>${escapeText(sender)}</b>: `);
  let first = root.children.find(isElement);
  if (first?.name === "div") first = first.children.find(isElement);
  if (first?.name === "p") {
    for (const node of [...bold].reverse()) DomUtils.prependChild(first, node);
    return { plain, html: serialize(root) };
  }
  return { plain, html: `<b>${escapeText(sender)}</b>: ${message.html}` };
}
