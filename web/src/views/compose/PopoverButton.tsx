/**
 * A button of the compose box that opens a popover dialog beside it ("Saved snippets", "Send
 * later"): placed by popover.ts, the focus on its first field or button, closed by Esc (the
 * focus back on the button), a press outside, or its content's `close`.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { useDismiss, usePopoverPlacement } from "../popover.ts";

type PopoverProps = { label: string; class: string; scope: { current: HTMLElement | null }; onClose: () => void; children: (close: () => void) => ComponentChildren };

function Popover(props: PopoverProps) {
  const root = useRef<HTMLDivElement>(null);
  usePopoverPlacement(root, (el) => el.parentElement?.querySelector("[aria-haspopup=dialog]"));
  const onKeyDown = useDismiss(props.scope, props.onClose);
  useEffect(() => root.current?.querySelector<HTMLElement>("input, button")?.focus(), []);
  return (
    <div class={`compose-popover ${props.class}`} role="dialog" aria-label={props.label} ref={root} onKeyDown={onKeyDown}>
      {props.children(props.onClose)}
    </div>
  );
}

/** The button (`label`, `buttonClass`), and while open its popover (`popoverLabel` names it). */
export function PopoverButton(props: {
  label: string;
  buttonClass: string;
  scopeClass: string;
  popoverLabel: string;
  popoverClass: string;
  disabled?: boolean;
  children: (close: () => void) => ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const scope = useRef<HTMLSpanElement>(null);
  return (
    <span class={props.scopeClass} ref={scope}>
      <button type="button" class={props.buttonClass} aria-haspopup="dialog" aria-expanded={open} disabled={props.disabled === true && !open} onClick={() => setOpen(!open)}>
        {props.label}
      </button>
      {open && (
        <Popover label={props.popoverLabel} class={props.popoverClass} scope={scope} onClose={() => setOpen(false)}>
          {props.children}
        </Popover>
      )}
    </span>
  );
}
