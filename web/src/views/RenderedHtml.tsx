/**
 * HTML rendered by the server, as the feed shows it: its links to other sites open in new tabs
 * (`useLinksInNewTabs`, which the feed's messages use too), and `RenderedHtml` for a text that
 * is not a message (the compose box's preview, a scheduled message). The server's HTML is the
 * one thing shown as HTML; a user's own text is only ever shown as text.
 */
import { useLayoutEffect, useMemo, useRef } from "preact/hooks";
import { withEmojiGlyphs } from "./format.ts";

/** Whether a link leads elsewhere than one of the app's own views (`/#narrow/...`, a channel or user mention). */
function leavesApp(a: HTMLAnchorElement): boolean {
  return !(a.origin === location.origin && a.pathname === "/" && a.hash !== "");
}

/**
 * Links in a message open in a new tab, telling the site nothing of this page: following one
 * in this tab would leave the app (and Back reload it). Links to the app's own views stay here.
 */
export function useLinksInNewTabs(content: { current: HTMLElement | null }, html: string): void {
  useLayoutEffect(() => {
    for (const a of content.current?.querySelectorAll("a[href]") ?? []) {
      if (!(a instanceof HTMLAnchorElement) || !leavesApp(a)) continue;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
    }
  }, [html]);
}

/** The server's HTML for a text; `label` makes it a named region. */
export function RenderedHtml({ html, label }: { html: string; label?: string }) {
  const shown = useMemo(() => withEmojiGlyphs(html), [html]);
  const ref = useRef<HTMLDivElement>(null);
  useLinksInNewTabs(ref, shown);
  return <div ref={ref} class="message-content rendered" role={label === undefined ? undefined : "region"} aria-label={label} dangerouslySetInnerHTML={{ __html: shown }} />;
}
