/**
 * Upstream's links to its overlays (`#drafts`, `#scheduled`, as the Notification Bot writes
 * them): such a hash opens the dialog, and is then replaced by the combined feed's (which the
 * app shows for a hash it does not know), so the same link opens it again.
 */
import { useEffect } from "preact/hooks";
import { FEED, narrowHash } from "../../state/narrow.ts";

/** Opens a dialog (`show(true)`) whenever the page's hash is `hash`. */
export function useHashDialog(hash: string, show: (open: boolean) => void): void {
  useEffect(() => {
    const check = () => {
      if (location.hash !== hash) return;
      history.replaceState(null, "", narrowHash(FEED));
      show(true);
    };
    check();
    window.addEventListener("hashchange", check);
    return () => window.removeEventListener("hashchange", check);
  }, []);
}
