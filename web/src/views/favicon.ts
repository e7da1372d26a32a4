/**
 * The unread count on the tab's icon, as upstream draws it: the page's own icon (index.html's
 * inline SVG speech bubble, drawn again from its path) on a canvas with a red badge holding the
 * count, set as the icon while anything is unread; the page's icon comes back at zero.
 */
import { useEffect } from "preact/hooks";

/** The canvas's side in px (the 32-unit icon drawn twice as large, for sharp badges). */
const SIZE = 64;
const BADGE_COLOUR = "#d92d20";

/** The page's icon as index.html sets it, remembered before the first change. */
let original: string | null = null;

function iconLink(): HTMLLinkElement | null {
  return document.querySelector<HTMLLinkElement>("link[rel~=icon]");
}

/** Paints the page's icon, when it is an inline SVG path, in a 32-unit box. */
function paintIcon(ctx: CanvasRenderingContext2D, href: string): void {
  const prefix = "data:image/svg+xml,";
  if (!href.startsWith(prefix)) return;
  const svg = decodeURIComponent(href.slice(prefix.length));
  const path = /\bd="([^"]+)"/.exec(svg)?.[1];
  if (path === undefined) return;
  ctx.save();
  ctx.scale(SIZE / 32, SIZE / 32);
  ctx.fillStyle = /\bfill="([^"]+)"/.exec(svg)?.[1] ?? "#3f6ee8";
  ctx.fill(new Path2D(path));
  ctx.restore();
}

/** The icon with `count` in a badge at its top right, as a PNG data URL (null where there is no canvas). */
function badgedIcon(href: string, count: number): string | null {
  const canvas = document.createElement("canvas");
  canvas.width = SIZE;
  canvas.height = SIZE;
  const ctx = canvas.getContext("2d");
  if (ctx === null) return null;
  paintIcon(ctx, href);
  const text = count > 99 ? "99+" : String(count);
  ctx.font = `bold ${text.length > 2 ? 28 : 38}px sans-serif`;
  const height = 40;
  const width = Math.max(height, ctx.measureText(text).width + 14);
  const left = SIZE - width;
  ctx.fillStyle = BADGE_COLOUR;
  ctx.beginPath();
  ctx.roundRect(left, 0, width, height, height / 2);
  ctx.fill();
  ctx.fillStyle = "#ffffff";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(text, left + width / 2, height / 2 + 2);
  return canvas.toDataURL("image/png");
}

/** Keeps the tab's icon showing `count` (nothing at zero); the page's icon comes back when the caller goes. */
export function useFaviconCount(count: number): void {
  useEffect(() => {
    const link = iconLink();
    if (link === null) return;
    original ??= link.href;
    link.href = count > 0 ? (badgedIcon(original, count) ?? original) : original;
  }, [count]);
  useEffect(
    () => () => {
      const link = iconLink();
      if (link !== null && original !== null) link.href = original;
    },
    [],
  );
}
