/**
 * A button that opens a menu of actions (the message, topic and user menus): an ARIA menu placed
 * next to its button (popover.ts); arrow keys, Home and End move between items, Esc closes it and
 * gives the focus back to the button, Tab or a click outside closes it.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { usePopoverPlacement } from "./popover.ts";

/** One item of a menu. */
export type MenuItem = { label: string; run: () => void };

function Menu({ label, items, onClose }: { label: string; items: MenuItem[]; onClose: (refocus: boolean) => void }) {
  const root = useRef<HTMLDivElement>(null);
  usePopoverPlacement(root, (el) => el.parentElement?.querySelector("[aria-haspopup=menu]"));
  useEffect(() => {
    root.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    const outside = (e: MouseEvent) => {
      if (e.target instanceof Node && root.current && !root.current.parentElement?.contains(e.target)) onClose(false);
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, []);
  const onKeyDown = (e: KeyboardEvent) => {
    e.stopPropagation();
    const buttons = [...(root.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    const at = buttons.findIndex((b) => b === document.activeElement);
    const go = (i: number) => buttons[(i + buttons.length) % buttons.length]?.focus();
    if (e.key === "ArrowDown") go(at + 1);
    else if (e.key === "ArrowUp") go(at - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(buttons.length - 1);
    else if (e.key === "Escape") onClose(true);
    else if (e.key === "Tab") return onClose(false);
    else return;
    e.preventDefault();
  };
  return (
    <div class="actions-menu" role="menu" aria-label={label} ref={root} onKeyDown={onKeyDown}>
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          onClick={(e) => {
            e.stopPropagation();
            onClose(false);
            item.run();
          }}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}

/**
 * The button and, while open, its menu. `items` is asked when the menu opens and on every render
 * while open (what is offered follows the state); `prepare` runs when the button is pointed at,
 * focused or clicked (fetching what deciding the items needs); `menuLabel` names the menu.
 */
export function MenuButton(props: {
  label: string;
  menuLabel: string;
  items: () => MenuItem[];
  prepare?: () => void;
  class?: string;
  wrapperClass?: string;
  onOpenChange?: (open: boolean) => void;
  children: ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const change = (next: boolean) => {
    setOpen(next);
    props.onOpenChange?.(next);
  };
  const close = (refocus: boolean) => {
    change(false);
    if (refocus) button.current?.focus();
  };
  return (
    <span class={`menu-anchor ${props.wrapperClass ?? ""}`}>
      <button
        ref={button}
        type="button"
        class={props.class ?? "toolbar-button"}
        aria-label={props.label}
        title={props.label}
        aria-haspopup="menu"
        aria-expanded={open}
        onMouseEnter={props.prepare}
        onFocus={props.prepare}
        onClick={() => {
          props.prepare?.();
          change(!open);
        }}
      >
        {props.children}
      </button>
      {open && <Menu label={props.menuLabel} items={props.items()} onClose={close} />}
    </span>
  );
}
