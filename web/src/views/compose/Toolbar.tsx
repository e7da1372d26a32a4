/**
 * The compose box's toolbar, as upstream's compose buttons: formatting (bold, italic,
 * strikethrough, link, code, quote, lists), a mention, an emoji from the picker, the preview
 * toggle, saved snippets and the Drafts view. Arrow keys move along it (an ARIA toolbar).
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { applyFormat, insertEmoji, insertMention, type Format } from "../../state/compose-format.ts";
import { showDrafts } from "../../state/drafts-view.ts";
import { previewing, setPreviewing } from "../../state/preview.ts";
import { EmojiPicker } from "../EmojiPicker.tsx";
import { SnippetsButton } from "./Snippets.tsx";
import "./Toolbar.css";

/** The formatting buttons: name (with its key, if any), glyph, format. */
const FORMATS: ReadonlyArray<{ label: string; glyph: ComponentChildren; format: Format; glyphClass?: string }> = [
  { label: "Bold (Ctrl+B)", glyph: "B", format: "bold", glyphClass: "glyph-bold" },
  { label: "Italic (Ctrl+I)", glyph: "I", format: "italic", glyphClass: "glyph-italic" },
  { label: "Strikethrough", glyph: "S", format: "strikethrough", glyphClass: "glyph-strike" },
  {
    label: "Link (Ctrl+Shift+L)",
    glyph: (
      <svg viewBox="0 0 24 24" width="15" height="15">
        <path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
      </svg>
    ),
    format: "link",
  },
  { label: "Code", glyph: "</>", format: "code" },
  { label: "Quote", glyph: "❝", format: "quote" },
  { label: "Bulleted list", glyph: "•≡", format: "bulleted" },
  { label: "Numbered list", glyph: "1≡", format: "numbered" },
];

/** Arrow keys, Home and End move the focus among the toolbar's own buttons. */
function moveAlong(e: KeyboardEvent): void {
  const bar = e.currentTarget;
  if (!(bar instanceof HTMLElement) || !(e.target instanceof HTMLElement) || e.target.closest("[role=dialog]") !== null) return;
  const buttons = [...bar.querySelectorAll<HTMLButtonElement>(":scope > button, :scope > .toolbar-popover-scope > button")];
  const at = buttons.findIndex((b) => b === e.target);
  const to = e.key === "ArrowRight" ? at + 1 : e.key === "ArrowLeft" ? at - 1 : e.key === "Home" ? 0 : e.key === "End" ? buttons.length - 1 : null;
  if (at < 0 || to === null) return;
  e.preventDefault();
  buttons[(to + buttons.length) % buttons.length]?.focus();
}

/** The toolbar under the text box. */
export function Toolbar() {
  const [picking, setPicking] = useState(false);
  const inPreview = previewing.value;
  return (
    <div class="compose-toolbar" role="toolbar" aria-label="Formatting and compose tools" onKeyDown={moveAlong}>
      {FORMATS.map((f) => (
        <button key={f.format} type="button" class="compose-tool" aria-label={f.label} title={f.label} disabled={inPreview} onClick={() => applyFormat(f.format)}>
          <span class={f.glyphClass} aria-hidden="true">
            {f.glyph}
          </span>
        </button>
      ))}
      <button type="button" class="compose-tool" aria-label="Mention someone" title="Mention someone" disabled={inPreview} onClick={insertMention}>
        <span aria-hidden="true">@</span>
      </button>
      {/* Enter in the picker's search field picks an emoji; it never submits (sends) the compose form. */}
      <span class="toolbar-popover-scope" data-picker-scope onKeyDownCapture={(e) => e.key === "Enter" && e.target instanceof HTMLInputElement && e.preventDefault()}>
        <button type="button" class="compose-tool" data-picker-toggle aria-label="Add emoji" title="Add emoji" aria-expanded={picking} disabled={inPreview} onClick={() => setPicking(!picking)}>
          <span aria-hidden="true">☺</span>
        </button>
        {picking && (
          <EmojiPicker
            label="Add emoji"
            onPick={(emoji) => {
              setPicking(false);
              insertEmoji(emoji.name);
            }}
            onClose={() => setPicking(false)}
          />
        )}
      </span>
      <span class="toolbar-separator" aria-hidden="true" />
      <SnippetsButton disabled={inPreview} />
      <button type="button" class="compose-tool compose-tool-text" onClick={() => showDrafts(true)}>
        Drafts
      </button>
      <button type="button" class="compose-tool compose-tool-text" onClick={() => setPreviewing(!inPreview)}>
        {inPreview ? "Exit preview" : "Preview"}
      </button>
    </div>
  );
}
