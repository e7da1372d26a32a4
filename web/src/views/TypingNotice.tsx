/** "Ann is typing…" under the feed, for the conversation of the current narrow. */
import { narrow } from "../state/feed.ts";
import { userName } from "../state/store.ts";
import { typingIn } from "../state/typing.ts";

function sentence(names: readonly string[]): string {
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length <= 3) return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]} are typing…`;
  return "Several people are typing…";
}

/** The typing notice: a polite live region, empty when nobody types here. */
export function TypingNotice() {
  const ids = typingIn(narrow.value);
  return (
    <p class="typing-notice" role="status" aria-live="polite">
      {ids.length > 0 ? sentence(ids.map(userName)) : ""}
    </p>
  );
}
