/**
 * The compose box's formatting buttons and keys (Ctrl+B, Ctrl+I, Ctrl+Shift+L, as upstream's):
 * Zulip Markdown wrapped around the selection, or taken off again when the selection is already
 * wrapped; blocks (code, quote) and lists on whole lines. `formatText` is pure; `applyFormat`
 * edits the compose box at its selection.
 */
import * as compose from "./compose.ts";

export type Format = "bold" | "italic" | "strikethrough" | "link" | "code" | "quote" | "bulleted" | "numbered";

/** A text and the selection in it. */
export type Edit = { text: string; start: number; end: number };

const INLINE_MARKS: Partial<Record<Format, string>> = { bold: "**", italic: "*", strikethrough: "~~", code: "`" };

/** How many times `char` repeats at the end (or, `fromStart`, the start) of `text`. */
function run(text: string, char: string, fromStart: boolean): number {
  let n = 0;
  while (n < text.length && text[fromStart ? n : text.length - 1 - n] === char) n++;
  return n;
}

/** Whether runs of a mark's character on both sides close the mark: `*` needs odd runs (so `**x**` is not italic), `**` two or more. */
function closes(before: number, after: number, mark: string): boolean {
  if (before < mark.length || after < mark.length) return false;
  return mark.length > 1 || (before % 2 === 1 && after % 2 === 1);
}

/** Wraps the selection in `mark`, or unwraps it (marks just outside it or at its ends). */
function toggleInline(text: string, start: number, end: number, mark: string): Edit {
  const before = text.slice(0, start);
  const selected = text.slice(start, end);
  const after = text.slice(end);
  const char = mark[0];
  const n = mark.length;
  if (closes(run(before, char, false), run(after, char, true), mark)) {
    return { text: before.slice(0, -n) + selected + after.slice(n), start: start - n, end: end - n };
  }
  if (selected.length >= 2 * n + 1 && closes(run(selected, char, true), run(selected, char, false), mark)) {
    return { text: before + selected.slice(n, -n) + after, start, end: end - 2 * n };
  }
  return { text: before + mark + selected + mark + after, start: start + n, end: end + n };
}

/** `[text](url)` with "url" selected to be typed over; a selected URL becomes the link's target. */
function link(text: string, start: number, end: number): Edit {
  const selected = text.slice(start, end);
  if (/^https?:\/\/\S+$/.test(selected)) {
    const inserted = `[](${selected})`;
    return { text: text.slice(0, start) + inserted + text.slice(end), start: start + 1, end: start + 1 };
  }
  const inserted = `[${selected}](url)`;
  const urlAt = start + selected.length + 3;
  return { text: text.slice(0, start) + inserted + text.slice(end), start: urlAt, end: urlAt + 3 };
}

/** The selection widened to whole lines. */
function lineRange(text: string, start: number, end: number): { from: number; to: number } {
  const from = text.lastIndexOf("\n", start - 1) + 1;
  const last = end > start && text[end - 1] === "\n" ? end - 1 : end;
  const newline = text.indexOf("\n", last);
  return { from, to: newline < 0 ? text.length : newline };
}

/** A fenced block (```` ```quote ````, ```` ``` ````) around the selected lines, on lines of its own. */
function fence(text: string, start: number, end: number, info: string): Edit {
  const { from, to } = start === end ? { from: start, to: end } : lineRange(text, start, end);
  const inner = text.slice(from, to);
  const before = text.slice(0, from);
  const lead = before !== "" && !before.endsWith("\n") ? "\n" : "";
  const open = `${lead}\`\`\`${info}\n`;
  const after = text.slice(to);
  const trail = after !== "" && !after.startsWith("\n") ? "\n" : "";
  return { text: `${before}${open}${inner}\n\`\`\`${trail}${after}`, start: from + open.length, end: from + open.length + inner.length };
}

const BULLET = /^[-*+] /;
const NUMBER = /^\d+\. /;

/** A list of the selected lines (numbered, or bulleted), or the lines again when they are one already. */
function list(text: string, start: number, end: number, numbered: boolean): Edit {
  const { from, to } = lineRange(text, start, end);
  const lines = text.slice(from, to).split("\n");
  const marker = numbered ? NUMBER : BULLET;
  const listed = lines.filter((l) => l !== "").every((l) => marker.test(l)) && lines.some((l) => l !== "");
  const changed = listed ? lines.map((l) => l.replace(marker, "")) : lines.map((l, i) => `${numbered ? `${i + 1}.` : "-"} ${l.replace(numbered ? BULLET : NUMBER, "")}`);
  const block = changed.join("\n");
  const selectAll = start !== end || lines.length > 1;
  return { text: text.slice(0, from) + block + text.slice(to), start: selectAll ? from : from + block.length, end: from + block.length };
}

/** The text with `format` applied to the selection [start, end), and the selection after it. */
export function formatText(text: string, start: number, end: number, format: Format): Edit {
  const mark = INLINE_MARKS[format];
  if (format === "code" && text.slice(start, end).includes("\n")) return fence(text, start, end, "");
  if (mark !== undefined) return toggleInline(text, start, end, mark);
  if (format === "link") return link(text, start, end);
  if (format === "quote") return fence(text, start, end, "quote");
  return list(text, start, end, format === "numbered");
}

/** Applies a format to the compose box's selection. */
export function applyFormat(format: Format): void {
  const { start, end } = compose.selection();
  const edit = formatText(compose.content.value, start, end, format);
  compose.setText(edit.text, edit.start, edit.end);
}

/** Inserts a word at the caret, with a space before it where it would join the word before. */
function insertWord(word: string): void {
  const { start } = compose.selection();
  const before = compose.content.value.slice(0, start);
  compose.insertText(before === "" || /\s$/.test(before) ? word : ` ${word}`);
}

/** The mention button: an `@` at the caret (the autocomplete then offers people and groups). */
export function insertMention(): void {
  insertWord("@");
}

/** The emoji button's pick: `:name: ` at the caret. */
export function insertEmoji(name: string): void {
  insertWord(`:${name}: `);
}

/** The format a key of the text box asks for (Ctrl or Cmd with B bold, I italic, Shift+L link), if any. */
export function formatKey(e: { key: string; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }): Format | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null;
  const key = e.key.toLowerCase();
  if (key === "b" && !e.shiftKey) return "bold";
  if (key === "i" && !e.shiftKey) return "italic";
  if (key === "l" && e.shiftKey) return "link";
  return null;
}
