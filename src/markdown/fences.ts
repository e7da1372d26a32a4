// Fenced blocks, processed line by line before block parsing as upstream does: code and math
// become stashed HTML, ```quote becomes "> " lines, ```spoiler becomes a stashed rendered block.
// Fences nest inside quotes and spoilers; a bare closing fence closes the innermost block.
import { codeBlockHtml } from "./code.ts";
import { tag } from "./escape.ts";
import { stashBlock, type RenderEnv } from "./env.ts";
import { displayTexHtml } from "./tex.ts";

/**
 * Deepest nesting of fenced blocks; deeper fences are plain lines. Each closing quote or spoiler
 * re-prefixes or re-renders what it holds, so depth multiplies the work (a thousand nested
 * ```quote lines would make millions of lines); a few levels is all anyone writes.
 */
const MAX_FENCE_DEPTH = 8;

const FENCE = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+\-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?$/;

interface Frame {
  kind: "outer" | "code" | "math" | "quote" | "spoiler";
  fence: string;
  lang: string;
  header: string;
  lines: string[];
}

function openFrame(line: string): Frame | null {
  const m = FENCE.exec(line);
  if (m === null) return null;
  const fence = m[1];
  if (fence.startsWith("`") && line.slice(fence.length).includes("`")) return null;
  const lang = m[2] ?? "";
  const header = (m[3] ?? "").trim();
  const lower = lang.toLowerCase();
  const kind = lower === "quote" ? "quote" : lower === "spoiler" ? "spoiler" : lower === "math" ? "math" : "code";
  return { kind, fence, lang, header, lines: [] };
}

function spoilerHtml(env: RenderEnv, header: string, body: string): string {
  const headerHtml = header === "" ? "" : env.renderFragment(header);
  const contentHtml = env.renderFragment(body);
  const head = tag("div", [["class", "spoiler-header"]], `\n${headerHtml}`);
  const content = tag("div", [["class", "spoiler-content"], ["aria-hidden", "true"]], `\n${contentHtml}`);
  return `${tag("div", [["class", "spoiler-block"]], head + content)}\n`;
}

/** The lines a closed frame leaves in its parent. */
function closeFrame(env: RenderEnv, frame: Frame): string[] {
  const body = frame.lines.join("\n");
  switch (frame.kind) {
    case "quote":
      return ["", ...frame.lines.map((l) => `> ${l}`), ""];
    case "spoiler":
      return ["", stashBlock(env, spoilerHtml(env, frame.header, body)), ""];
    case "math":
      return ["", stashBlock(env, displayTexHtml(env, body)), ""];
    default: {
      const lang = frame.lang === "" ? (env.ctx.defaultCodeBlockLanguage ?? "") : frame.lang;
      return ["", stashBlock(env, codeBlockHtml(body, lang, { firstLineLanguage: true, highlightBudget: env.highlightBudget })), ""];
    }
  }
}

/** Replaces fenced blocks in `markdown` with quote lines and stash placeholders. */
export function processFences(env: RenderEnv, markdown: string): string {
  const stack: Frame[] = [{ kind: "outer", fence: "", lang: "", header: "", lines: [] }];
  for (const line of markdown.split("\n")) {
    const top = stack[stack.length - 1];
    if (top.kind !== "outer" && line.trimEnd() === top.fence) {
      stack.pop();
      stack[stack.length - 1].lines.push(...closeFrame(env, top));
      continue;
    }
    const opened = top.kind === "code" || top.kind === "math" || stack.length > MAX_FENCE_DEPTH ? null : openFrame(line);
    if (opened !== null) stack.push(opened);
    else top.lines.push(line);
  }
  while (stack.length > 1) {
    const frame = stack.pop();
    if (frame !== undefined) stack[stack.length - 1].lines.push(...closeFrame(env, frame));
  }
  return stack[0].lines.join("\n");
}
