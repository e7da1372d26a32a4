/** The toolbar over the Inbox and Recent conversations: a filter box, and the view's other filters beside it. */
import type { ComponentChildren } from "preact";
import "./FilterBox.css";

export function FilterBox({ value, onValue, children }: { value: string; onValue: (text: string) => void; children?: ComponentChildren }) {
  return (
    <div class="view-toolbar">
      <input
        type="search"
        class="view-filter"
        aria-label="Filter conversations"
        placeholder="Filter conversations"
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        onKeyDown={(e) => e.key === "Escape" && (onValue(""), e.currentTarget.blur())}
      />
      {children}
    </div>
  );
}

/** What a view says when it has nothing to list. */
export function EmptyNote({ text }: { text: string }) {
  return <p class="view-empty">{text}</p>;
}
