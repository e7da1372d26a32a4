/**
 * The offer to turn desktop notifications on, as upstream's banner: shown while the browser has
 * not been asked (permission "default") and the user's settings want desktop notifications.
 * Its button asks the browser (a click is the user gesture the prompt needs); "Never ask on this
 * computer" remembers the refusal in this browser, "Not now" hides it until the next visit.
 */
import { useState } from "preact/hooks";
import { askPermission, neverAsk, permission, stopAsking, wantsDesktop } from "../state/notifications.ts";
import "./NotificationBanner.css";

/** The banner, when it has something to offer. */
export function NotificationBanner() {
  const [hidden, setHidden] = useState(false);
  if (hidden || neverAsk.value || permission.value !== "default" || !wantsDesktop()) return null;
  return (
    <section class="notification-banner" aria-label="Desktop notifications">
      <p>Parley needs your permission to show desktop notifications.</p>
      <div class="notification-banner-buttons">
        <button type="button" class="button-primary" onClick={() => void askPermission()}>
          Enable desktop notifications
        </button>
        <button type="button" class="button-quiet" onClick={stopAsking}>
          Never ask on this computer
        </button>
        <button type="button" class="button-quiet" onClick={() => setHidden(true)}>
          Not now
        </button>
      </div>
    </section>
  );
}
