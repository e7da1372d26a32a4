/**
 * A message's rendered HTML as the plain text a phone notification shows (Zulip's
 * get_mobile_push_content and truncate_content): emoji as their characters, images as their alt
 * text, TeX as its source, ordered lists numbered, blockquotes as "> " lines, a spoiler as its
 * header and "(…)", and, when a message mixes quotes with its own words, each run of quotes (and
 * "@user said:" lines) collapsed to "[…]" so the new words show. At most 200 characters, then "…".
 * Also reads who the HTML mentions, for the notification's group-mention fields.
 */
import { parseDocument } from "htmlparser2";
import type { ChildNode, Element } from "domhandler";

/** Characters of content a notification carries (Zulip's truncate_content). */
export const PUSH_CONTENT_MAX = 200;

type Parent = { children: ChildNode[] };

const isElement = (node: ChildNode): node is Element => node.type === "tag" || node.type === "script" || node.type === "style";
const classes = (el: Element): string[] => (el.attribs.class ?? "").split(/\s+/).filter(Boolean);

function descendants(root: Parent, keep: (el: Element) => boolean, out: Element[] = []): Element[] {
  for (const child of root.children) {
    if (!isElement(child)) continue;
    if (keep(child)) out.push(child);
    descendants(child, keep, out);
  }
  return out;
}

function textOf(node: ChildNode): string {
  if (node.type === "text") return node.data;
  return isElement(node) ? node.children.map(textOf).join("") : "";
}

/** "1f468-200d-1f469" as its characters; "" for anything else. */
function emojiFromCode(code: string): string {
  const points = code.split("-").map((hex) => Number.parseInt(hex, 16));
  if (points.some((p) => !Number.isInteger(p) || p < 0 || p > 0x10ffff)) return "";
  return String.fromCodePoint(...points);
}

/** A rendered TeX formula, replaced by its source. The "$$" framing is upstream's as we read it (not confirmed against its source). */
function texSource(el: Element): string | null {
  if (!classes(el).includes("katex")) return null;
  const annotation = descendants(el, (d) => d.name === "annotation" && d.attribs.encoding === "application/x-tex")[0];
  return annotation ? `$$${textOf(annotation)}$$` : null;
}

/** A line "@user said:" that a quote-and-reply puts above its quote, linking to a message of this server. */
function isSaidLine(el: Element, siteUrl: string): boolean {
  if (el.name !== "p") return false;
  const mentions = descendants(el, (d) => classes(d).includes("user-mention"));
  const links = descendants(el, (d) => d.name === "a" && /#narrow\/.*\/(near|with)\/\d+/.test(d.attribs.href ?? "") && ((d.attribs.href ?? "").startsWith(siteUrl) || (d.attribs.href ?? "").startsWith("#")));
  if (mentions.length !== 1 || links.length !== 1) return false;
  return textOf(el).replace(textOf(mentions[0]), "").replace(textOf(links[0]), "").trim() === ":";
}

/** The top-level blocks with each run of quotes replaced by one "[…]", when quotes and other blocks mix. */
function collapseQuotes(blocks: ChildNode[], siteUrl: string): Array<ChildNode | "[…]"> {
  const elements = blocks.filter(isElement);
  const quoted = new Set(elements.filter((el) => el.name === "blockquote" || isSaidLine(el, siteUrl)));
  if (quoted.size === 0 || quoted.size === elements.length) return blocks;
  const out: Array<ChildNode | "[…]"> = [];
  let inRun = false;
  // Blank text between two quoted blocks goes with them; after the run's last, it stays.
  let blank: ChildNode[] = [];
  for (const node of blocks) {
    if (inRun && node.type === "text" && node.data.trim() === "") {
      blank.push(node);
      continue;
    }
    if (isElement(node) && quoted.has(node)) {
      if (!inRun) out.push("[…]");
      inRun = true;
      blank = [];
      continue;
    }
    out.push(...blank, node);
    blank = [];
    inRun = false;
  }
  out.push(...blank);
  return out;
}

function orderedList(ol: Element, depth: number): string {
  let n = Number.parseInt(ol.attribs.start ?? "1", 10);
  if (!Number.isFinite(n)) n = 1;
  const indent = depth > 0 ? `\n${"  ".repeat(depth)}` : "";
  const items = ol.children.filter((c): c is Element => isElement(c) && c.name === "li");
  return items.map((li) => `${indent}${n++}. ${plain(li, depth + 1).trim()}`).join("\n");
}

/** The text of a node; `depth` counts the ordered lists around it. */
function plain(node: ChildNode, depth: number): string {
  if (node.type === "text") return node.data;
  if (!isElement(node)) return "";
  const cls = classes(node);
  if (node.name === "ol") return orderedList(node, depth);
  if (cls.includes("spoiler-block")) {
    const header = descendants(node, (d) => classes(d).includes("spoiler-header"))[0];
    const text = header ? plain(header, depth).trim() : "";
    return text === "" ? "(…)\n" : `${text} (…)\n`;
  }
  const tex = texSource(node);
  if (tex !== null) return tex;
  const emoji = cls.find((c) => c.startsWith("emoji-"));
  if (cls.includes("emoji") && emoji) return emojiFromCode(emoji.slice("emoji-".length));
  if (node.name === "img") return node.attribs.alt ?? "";
  const inner = node.children.map((c) => plain(c, depth)).join("");
  if (node.name === "blockquote") {
    return inner
      .split(/\r?\n/)
      .filter((line) => line !== "")
      .map((line) => `> ${line}\n`)
      .join("");
  }
  return inner;
}

/** The notification text of rendered HTML, untruncated. */
export function pushText(html: string, siteUrl: string): string {
  if (html === "") return "";
  const root = parseDocument(html);
  return collapseQuotes(root.children, siteUrl)
    .map((node) => (node === "[…]" ? "[…]" : plain(node, 0)))
    .join("");
}

/** Zulip's truncate_content: at most PUSH_CONTENT_MAX characters (code points), then "…". */
export function truncatePushText(text: string): string {
  const chars = Array.from(text);
  return chars.length <= PUSH_CONTENT_MAX ? text : `${chars.slice(0, PUSH_CONTENT_MAX).join("")}…`;
}

/** The users and groups the HTML mentions by name (silent mentions do not count). */
export function mentionsIn(html: string): { userIds: Set<number>; groupIds: number[] } {
  const root = parseDocument(html);
  const userIds = new Set<number>();
  const groupIds: number[] = [];
  for (const el of descendants(root, (d) => d.name === "span")) {
    const cls = classes(el);
    if (cls.includes("silent")) continue;
    if (cls.includes("user-mention") && el.attribs["data-user-id"]) userIds.add(Number(el.attribs["data-user-id"]));
    if (cls.includes("user-group-mention") && el.attribs["data-user-group-id"]) groupIds.push(Number(el.attribs["data-user-group-id"]));
  }
  return { userIds, groupIds };
}
