/**
 * The compose box's autocomplete list: an ARIA listbox under the text box, which stays the
 * focus (aria-activedescendant names the highlighted option). Arrow keys move, Enter or Tab
 * picks, Esc closes it until the typed word changes; a click picks too.
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { findTrigger, suggestionsFor, type Suggestion, type Trigger } from "../state/autocomplete.ts";
import * as compose from "../state/compose.ts";
import { ensureEmoji } from "../state/emoji.ts";
import { ensureGroups } from "../state/groups.ts";
import { Avatar } from "./Avatar.tsx";
import { EmojiGlyph } from "./EmojiPicker.tsx";

const LISTBOX_ID = "compose-autocomplete";

/** What the text box needs: its ARIA attributes, a key handler (true: the key was used), and a caret report. */
export type AutocompleteControl = {
  attributes: Record<string, string | undefined>;
  onKeyDown: (e: KeyboardEvent) => boolean;
  update: (el: HTMLTextAreaElement) => void;
  /** Closes the list (the text box lost the focus). */
  close: () => void;
  list: JSX.Element | null;
};

function optionId(s: Suggestion): string {
  return `ac-${s.key}`;
}

function Option({ s, active, onPick }: { s: Suggestion; active: boolean; onPick: () => void }) {
  return (
    <li
      id={optionId(s)}
      role="option"
      aria-selected={active}
      class={`ac-option${active ? " active" : ""}`}
      onMouseDown={(e) => {
        // Keep the focus in the text box.
        e.preventDefault();
        onPick();
      }}
    >
      {s.kind === "user" && <Avatar userId={s.userId} name={s.label} size={20} />}
      {s.kind === "group" && <span class="ac-icon" aria-hidden="true">👥</span>}
      {s.kind === "channel" && (
        <span class="ac-icon" aria-hidden="true" style={{ color: s.color }}>
          #
        </span>
      )}
      {s.kind === "emoji" && (
        <span class="ac-icon" aria-hidden="true">
          <EmojiGlyph emoji={s.emoji} />
        </span>
      )}
      <span class="ac-label">{s.kind === "emoji" ? `:${s.label}:` : s.label}</span>
      {s.detail !== "" && <span class="ac-detail">{s.detail}</span>}
    </li>
  );
}

/** What the list shows: the typed trigger, the caret, the highlighted option, and where Esc closed it. */
type ListState = { trigger: Trigger | null; caret: number; active: number; dismissedAt: number | null };

const CLOSED: ListState = { trigger: null, caret: 0, active: 0, dismissedAt: null };

/** The state after the text box's text or caret changed. */
function retyped(state: ListState, next: Trigger | null, caret: number): ListState {
  const same = next?.start === state.trigger?.start && next?.query === state.trigger?.query;
  const dismissedAt = next === null || next.start !== state.dismissedAt ? null : state.dismissedAt;
  return { trigger: next, caret, active: same ? state.active : 0, dismissedAt };
}

/**
 * The autocomplete of a text box whose text is compose.content. State changes are functional
 * updates, so a handler that runs late (an effect from an earlier render) cannot undo a newer one
 * (an Esc that closed the list).
 */
export function useAutocomplete(): AutocompleteControl {
  const [state, setState] = useState<ListState>(CLOSED);
  const { trigger, caret, active, dismissedAt } = state;
  useEffect(() => {
    if (trigger?.kind === "mention") void ensureGroups();
    if (trigger?.kind === "emoji") void ensureEmoji();
  }, [trigger?.kind]);
  const open = trigger !== null && trigger.start !== dismissedAt;
  const suggestions = open ? suggestionsFor(trigger) : [];
  const shown = suggestions.length > 0;
  const current = shown ? Math.min(active, suggestions.length - 1) : 0;
  const close = () => setState((now) => ({ ...now, trigger: null }));
  const pick = (s: Suggestion) => {
    if (trigger === null) return;
    compose.replaceRange(trigger.start, caret, s.insert);
    close();
  };
  const update = (el: HTMLTextAreaElement) => {
    const next = el.selectionStart === el.selectionEnd ? findTrigger(el.value, el.selectionStart) : null;
    const at = el.selectionStart;
    setState((now) => retyped(now, next, at));
  };
  const onKeyDown = (e: KeyboardEvent): boolean => {
    if (!shown || e.isComposing) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const count = suggestions.length;
      const step = e.key === "ArrowDown" ? 1 : count - 1;
      setState((now) => ({ ...now, active: (Math.min(now.active, count - 1) + step) % count }));
    } else if ((e.key === "Enter" && !e.shiftKey) || (e.key === "Tab" && !e.shiftKey)) pick(suggestions[current]);
    else if (e.key === "Escape") setState((now) => ({ ...now, dismissedAt: now.trigger?.start ?? null }));
    else return false;
    e.preventDefault();
    e.stopPropagation();
    return true;
  };
  const list = shown ? (
    <ul class="autocomplete" id={LISTBOX_ID} role="listbox" aria-label="Suggestions">
      {suggestions.map((s, i) => (
        <Option key={s.key} s={s} active={i === current} onPick={() => pick(s)} />
      ))}
    </ul>
  ) : null;
  const attributes = {
    "aria-autocomplete": "list",
    "aria-controls": shown ? LISTBOX_ID : undefined,
    "aria-activedescendant": shown ? optionId(suggestions[current]) : undefined,
  };
  return { attributes, onKeyDown, update, close, list };
}
