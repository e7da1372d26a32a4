/** The page's layout state that views share: the sidebar shown as a menu on narrow screens, the shortcuts help. */
import { signal } from "@preact/signals";

/** Whether the sidebar is open as a menu (narrow screens, where it hides behind the "Channels" button). */
export const sidebarOpen = signal(false);

// Going anywhere (a sidebar link, a shortcut, the back button) closes the menu.
window.addEventListener("hashchange", () => (sidebarOpen.value = false));

/** Whether the keyboard shortcuts' help (the `?` key) is open. */
export const shortcutsOpen = signal(false);
