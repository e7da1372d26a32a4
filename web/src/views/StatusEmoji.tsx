/**
 * A user's status beside their name (user list, sender names, the top bar): the status emoji,
 * or a speech mark for a status of text only, with the status as its tooltip and spoken name.
 */
import { useEffect } from "preact/hooks";
import { ensureEmoji, realmEmojiById, spokenEmojiName } from "../state/emoji.ts";
import { statusOf, type StatusEmoji } from "../state/user-status.ts";
import { EmojiGlyph } from "./EmojiPicker.tsx";
import "./UserCard.css";

/** A status emoji's picture (a custom emoji's image once the organization's emoji are loaded). */
export function StatusGlyph({ emoji }: { emoji: StatusEmoji }) {
  const custom = emoji.reaction_type === "realm_emoji";
  const url = custom ? realmEmojiById.value.get(emoji.emoji_code)?.url : undefined;
  useEffect(() => {
    if (custom && url === undefined) void ensureEmoji();
  }, [custom, url]);
  return <EmojiGlyph emoji={{ name: emoji.emoji_name, emoji_code: emoji.emoji_code, reaction_type: custom ? "realm_emoji" : "unicode_emoji", url }} />;
}

/** The status mark of a user who set a status (nothing otherwise). */
export function StatusMark({ userId }: { userId: number }) {
  const status = statusOf(userId);
  if (status === undefined) return null;
  const spoken = status.text !== "" ? status.text : spokenEmojiName(status.emoji?.emoji_name ?? "");
  return (
    <span class="status-mark" role="img" aria-label={`Status: ${spoken}`} title={status.text !== "" ? status.text : `:${status.emoji?.emoji_name ?? ""}:`}>
      {status.emoji !== null ? <StatusGlyph emoji={status.emoji} /> : <span aria-hidden="true">💬</span>}
    </span>
  );
}
