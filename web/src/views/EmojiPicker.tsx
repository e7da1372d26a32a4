/**
 * The emoji picker: a dialog with a search field and a grid of emoji buttons (popular ones and
 * the organization's custom emoji first), filled from state/emoji.ts. Enter in the field picks
 * the first match, arrow keys move between emoji, Esc or a click outside closes it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { emojiChoices, emojiError, ensureEmoji, searchEmoji, spokenEmojiName, type EmojiChoice } from "../state/emoji.ts";
import { emojiFromCode } from "./format.ts";
import { usePopoverPlacement } from "./popover.ts";

/** Emoji shown at once; searching narrows the rest down. */
const SHOWN = 240;
/** Emoji per row of the grid (arrow keys move by rows). */
const COLUMNS = 8;

/** An emoji's picture: the character, or the custom emoji's image. */
export function EmojiGlyph({ emoji }: { emoji: Pick<EmojiChoice, "emoji_code" | "reaction_type" | "name" | "url"> }) {
  if (emoji.reaction_type === "realm_emoji" && emoji.url) return <img class="emoji-img" src={emoji.url} alt="" />;
  return <span class="emoji-glyph">{emojiFromCode(emoji.emoji_code) ?? `:${emoji.name}:`}</span>;
}

function moveFocus(grid: HTMLElement, from: HTMLElement, key: string): boolean {
  const buttons = [...grid.querySelectorAll<HTMLButtonElement>("button")];
  const at = buttons.findIndex((b) => b === from);
  const step = key === "ArrowRight" ? 1 : key === "ArrowLeft" ? -1 : key === "ArrowDown" ? COLUMNS : key === "ArrowUp" ? -COLUMNS : 0;
  if (at < 0 || step === 0) return false;
  buttons[Math.max(0, Math.min(buttons.length - 1, at + step))]?.focus();
  return true;
}

/** The picker; `onPick` gets the chosen emoji, `onClose` is called on Esc or a click outside. */
export function EmojiPicker({ label, onPick, onClose }: { label: string; onPick: (emoji: EmojiChoice) => void; onClose: () => void }) {
  const [query, setQuery] = useState("");
  const root = useRef<HTMLDivElement>(null);
  const grid = useRef<HTMLDivElement>(null);
  const search = useRef<HTMLInputElement>(null);
  usePopoverPlacement(root, (el) => el.closest("article, [data-picker-scope]")?.querySelector("[data-picker-toggle]"));
  useEffect(() => {
    void ensureEmoji(true);
    search.current?.focus();
    const outside = (e: MouseEvent) => {
      // The button that opened the picker toggles it itself.
      const toggle = root.current?.closest("article, [data-picker-scope]")?.querySelector("[data-picker-toggle]");
      if (e.target instanceof Node && root.current && !root.current.contains(e.target) && !toggle?.contains(e.target)) onClose();
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, []);
  const results = searchEmoji(query, SHOWN);
  const onKeyDown = (e: KeyboardEvent) => {
    e.stopPropagation();
    if (e.key === "Escape") {
      e.preventDefault();
      onClose();
    } else if (e.key === "Enter" && e.target === search.current && results[0]) {
      e.preventDefault();
      onPick(results[0]);
    } else if (e.key === "ArrowDown" && e.target === search.current) {
      e.preventDefault();
      grid.current?.querySelector("button")?.focus();
    } else if (e.target instanceof HTMLElement && grid.current?.contains(e.target) && moveFocus(grid.current, e.target, e.key)) {
      e.preventDefault();
    }
  };
  return (
    <div class="emoji-picker" role="dialog" aria-label={label} ref={root} onKeyDown={onKeyDown} onClick={(e) => e.stopPropagation()}>
      <input ref={search} type="search" class="emoji-search" aria-label="Search emoji" placeholder="Search emoji" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      {emojiError.value !== null && (
        <p class="form-error" role="alert">
          {emojiError.value}
        </p>
      )}
      <div class="emoji-grid" ref={grid} role="group" aria-label="Emoji">
        {results.map((e) => (
          <button key={`${e.reaction_type}:${e.emoji_code}`} type="button" class="emoji-choice" aria-label={spokenEmojiName(e.name)} title={`:${e.name}:`} onClick={() => onPick(e)}>
            <EmojiGlyph emoji={e} />
          </button>
        ))}
        {results.length === 0 && emojiChoices.value.length > 0 && <p class="emoji-none">No emoji match.</p>}
      </div>
    </div>
  );
}
