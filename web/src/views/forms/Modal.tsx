/** A modal dialog: the page behind dimmed, a titled card with a Close button; Esc or a click outside closes it, and the focus goes back where it was. */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** The dialog; `titleId` names it (aria-labelledby). */
export function Modal(props: { titleId: string; title: string; onClose: () => void; class?: string; children: ComponentChildren }) {
  const card = useRef<HTMLElement>(null);
  const close = useRef(props.onClose);
  close.current = props.onClose;
  useEffect(() => {
    const opener = document.activeElement;
    card.current?.focus();
    // Esc closes it wherever the focus is (a button that went busy drops it to the page).
    const onEscape = (e: KeyboardEvent) => e.key === "Escape" && close.current();
    document.addEventListener("keydown", onEscape);
    return () => {
      document.removeEventListener("keydown", onEscape);
      if (opener instanceof HTMLElement) opener.focus();
    };
  }, []);
  function onKeyDown(e: KeyboardEvent): void {
    // The app's shortcuts stay out of the dialog.
    e.stopPropagation();
    if (e.key === "Escape") props.onClose();
  }
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && props.onClose()}>
      <section class={`modal ${props.class ?? ""}`} role="dialog" aria-modal="true" aria-labelledby={props.titleId} tabIndex={-1} ref={card} onKeyDown={onKeyDown}>
        <header class="settings-header">
          <h2 id={props.titleId}>{props.title}</h2>
          <button type="button" class="button-quiet" onClick={props.onClose}>
            Close
          </button>
        </header>
        <div class="modal-body">{props.children}</div>
      </section>
    </div>
  );
}
