/**
 * Placing a popover (the actions menu, the emoji picker) next to the control that opened it.
 * They are fixed-positioned so the feed's clipped message groups cannot cut them off: below
 * the anchor when there is room, else above it, kept inside the window, and moved along when
 * anything scrolls, the window resizes or the popover's content changes size.
 */
import { useLayoutEffect } from "preact/hooks";

/** Space kept between the popover, its anchor and the window's edges, in px. */
const GAP_PX = 4;
const MARGIN_PX = 8;

function place(popover: HTMLElement, anchor: Element, align: Align): void {
  const a = anchor.getBoundingClientRect();
  const width = popover.offsetWidth;
  const height = popover.offsetHeight;
  const below = a.bottom + GAP_PX;
  const top = below + height <= window.innerHeight - MARGIN_PX ? below : Math.max(MARGIN_PX, a.top - height - GAP_PX);
  const left = Math.max(MARGIN_PX, Math.min(align === "start" ? a.left : a.right - width, window.innerWidth - width - MARGIN_PX));
  popover.style.top = `${top}px`;
  popover.style.left = `${left}px`;
}

/** Which edges line up: the popover's right with the anchor's (a menu), or their left edges (a card). */
type Align = "end" | "start";

/** Keeps `popover` placed at the element `findAnchor` returns (from the popover's own element). */
export function usePopoverPlacement(popover: { current: HTMLElement | null }, findAnchor: (popover: HTMLElement) => Element | null | undefined, align: Align = "end"): void {
  useLayoutEffect(() => {
    const el = popover.current;
    if (el === null) return;
    const update = () => {
      const anchor = findAnchor(el);
      if (anchor) place(el, anchor, align);
    };
    update();
    // Its size changes as content arrives (the emoji list loads after the picker opens).
    const resized = new ResizeObserver(update);
    resized.observe(el);
    document.addEventListener("scroll", update, { capture: true, passive: true });
    window.addEventListener("resize", update);
    return () => {
      resized.disconnect();
      document.removeEventListener("scroll", update, { capture: true });
      window.removeEventListener("resize", update);
    };
  }, []);
}

/**
 * Closes a popover on a press outside it and its anchor's wrapper (`scope`: the element holding
 * the popover and the button that opens it, which toggles it itself), and on Esc within it (the
 * focus going back to that button). Returns the popover's keydown handler.
 */
export function useDismiss(scope: { current: HTMLElement | null }, onClose: () => void): (e: KeyboardEvent) => void {
  useLayoutEffect(() => {
    const outside = (e: MouseEvent) => {
      if (e.target instanceof Node && scope.current !== null && !scope.current.contains(e.target)) onClose();
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, []);
  return (e: KeyboardEvent) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    e.stopPropagation();
    scope.current?.querySelector<HTMLElement>("[aria-haspopup]")?.focus();
    onClose();
  };
}
