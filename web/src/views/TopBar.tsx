/** The top bar: the organization, the current narrow's title, search, and the user's menu. */
import { useState } from "preact/hooks";
import { narrow } from "../state/feed.ts";
import { narrowHash, type Narrow } from "../state/narrow.ts";
import { connected, dmTitle, me, realmName, streamName } from "../state/store.ts";
import { logout } from "../state/session.ts";

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
      return `Search: ${n.query}`;
  }
}

function SearchBox() {
  const n = narrow.value;
  const [query, setQuery] = useState(n.kind === "search" ? n.query : "");
  return (
    <form
      role="search"
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        if (query.trim() !== "") location.hash = narrowHash({ kind: "search", query: query.trim() });
      }}
    >
      <input type="search" id="search-input" aria-label="Search" placeholder="Search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
    </form>
  );
}

/** The bar across the top. */
export function TopBar() {
  const user = me.value;
  return (
    <header class="top-bar">
      <a class="brand" href="#feed">
        {realmName.value || "Parley"}
      </a>
      <h1 class="narrow-title">{narrowTitle(narrow.value)}</h1>
      <SearchBox />
      {!connected.value && (
        <span class="connection" role="status">
          Reconnecting…
        </span>
      )}
      <div class="user-menu">
        <span class="user-name">{user?.full_name}</span>
        <button type="button" class="button-quiet" onClick={() => void logout()}>
          Log out
        </button>
      </div>
    </header>
  );
}
