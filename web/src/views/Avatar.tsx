/**
 * A user's avatar: their initials on a colour of their own, and the avatar image over it when
 * the server hosts one. Images from other sites (gravatar) are not loaded: they would tell a
 * third party who reads which conversation, and the server may run without outside access.
 */
import { useState } from "preact/hooks";

/** Colours for initials avatars, readable with white text in both themes. */
const COLOURS = ["#7a5af8", "#1f7a8c", "#c2410c", "#15803d", "#b91c1c", "#6d28d9", "#0e7490", "#a16207", "#be185d", "#4d7c0f"];

function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter((w) => w !== "");
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : words;
  return letters.map((w) => String.fromCodePoint(w.codePointAt(0) ?? 63)).join("").toUpperCase() || "?";
}

function sameOrigin(url: string | null | undefined): url is string {
  if (!url) return false;
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

/** The avatar of a user (decorative: the name is always shown beside it). */
export function Avatar({ userId, name, url, size = 36 }: { userId: number; name: string; url?: string | null; size?: number }) {
  const [loaded, setLoaded] = useState(false);
  const style = { width: `${size}px`, height: `${size}px`, background: COLOURS[userId % COLOURS.length], fontSize: `${Math.round(size * 0.4)}px` };
  return (
    <span class="avatar" style={style} aria-hidden="true">
      {initials(name)}
      {sameOrigin(url) && <img src={url} alt="" class={loaded ? "loaded" : ""} onLoad={() => setLoaded(true)} />}
    </span>
  );
}
