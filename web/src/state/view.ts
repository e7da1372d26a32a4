/**
 * Which view the centre of the page shows: the Inbox, Recent conversations, or a narrow's
 * messages (the feed). Named by the URL hash as in Zulip (`#inbox`, `#recent`, `#feed`,
 * `#narrow/...`); an empty hash is the user's home view (the `web_home_view` setting, the Inbox
 * by default as upstream).
 */
import { signal } from "@preact/signals";

export type View = "inbox" | "recent" | "messages";

/** The view shown now. */
export const view = signal<View>("messages");

/** The hash of a view other than a narrow's messages. */
export function viewHash(v: "inbox" | "recent"): string {
  return `#${v}`;
}

/** The view a location hash names; `homeView` is the user's web_home_view setting. */
export function viewOfHash(hash: string, homeView: string | undefined): View {
  const name = hash.replace(/^#/, "").split("/")[0];
  if (name === "inbox") return "inbox";
  // Upstream's older name for Recent conversations is `#recent_topics`.
  if (name === "recent" || name === "recent_topics") return "recent";
  if (name !== "") return "messages";
  if (homeView === "recent_topics") return "recent";
  return homeView === "all_messages" ? "messages" : "inbox";
}
