/** The top bar: the organization, the current narrow's title, search, and the user's menu (AccountMenu.tsx). */
import { useEffect, useState } from "preact/hooks";
import { narrow } from "../state/feed.ts";
import { sidebarOpen } from "../state/layout.ts";
import { narrowHash, type Narrow } from "../state/narrow.ts";
import { narrowFromSearch, searchText } from "../state/search.ts";
import { connected, dmTitle, realmName, streamName } from "../state/store.ts";
import { logout } from "../state/session.ts";
import { view } from "../state/view.ts";
import { AccountMenu } from "./AccountMenu.tsx";
import { SettingsButton } from "./settings/SettingsDialog.tsx";

/** The title of a narrow, as the top bar and the document title show it. */
export function narrowTitle(n: Narrow): string {
  switch (n.kind) {
    case "feed":
      return "Combined feed";
    case "channel":
      return `#${streamName(n.streamId)}`;
    case "topic":
      return `#${streamName(n.streamId)} › ${n.topic === "" ? "general chat" : n.topic}`;
    case "dm":
      return dmTitle(n.userIds);
    case "mentions":
      return "Mentions";
    case "starred":
      return "Starred messages";
    case "search":
      return `Search: ${searchText(n)}`;
  }
}

/** The title of what the page shows: the Inbox, Recent conversations, or the narrow's. */
export function pageTitle(): string {
  if (view.value === "inbox") return "Inbox";
  if (view.value === "recent") return "Recent conversations";
  return narrowTitle(narrow.value);
}

function SearchBox() {
  const n = narrow.value;
  // The box shows the open narrow as search text (as Zulip's does), and follows it; empty in the Inbox and Recent conversations.
  const shown = view.value === "messages" ? searchText(n) : "";
  const [query, setQuery] = useState(shown);
  useEffect(() => setQuery(shown), [shown]);
  return (
    <form
      role="search"
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        location.hash = narrowHash(narrowFromSearch(query.trim()), streamName);
      }}
    >
      <input
        type="search"
        id="search-input"
        aria-label="Search"
        placeholder="Search"
        title="Words, or Zulip's operators: channel:, topic:, sender:, dm:, is:starred, is:mentioned, has:link (-topic: excludes)"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key !== "Escape") return;
          setQuery(shown);
          e.currentTarget.blur();
        }}
      />
    </form>
  );
}

/** The bar across the top. */
export function TopBar() {
  return (
    <header class="top-bar">
      <button
        type="button"
        class="menu-button button-quiet"
        aria-expanded={sidebarOpen.value}
        aria-controls="left-sidebar"
        onClick={() => (sidebarOpen.value = !sidebarOpen.value)}
      >
        Channels
      </button>
      <a class="brand" href="#feed">
        {realmName.value || "Parley"}
      </a>
      <h1 class="narrow-title">{pageTitle()}</h1>
      <SearchBox />
      {!connected.value && (
        <span class="connection" role="status">
          Reconnecting…
        </span>
      )}
      <div class="user-menu">
        <AccountMenu />
        <SettingsButton />
        <button type="button" class="button-quiet" onClick={() => void logout()}>
          Log out
        </button>
      </div>
    </header>
  );
}
