/** One message of the feed: avatar, sender, time, rendered content, edited mark and reactions. */
import { useMemo } from "preact/hooks";
import { api } from "../api/client.ts";
import type { Message, Reaction } from "../api/types.ts";
import { selectedId } from "../state/feed.ts";
import { me, settings, users } from "../state/store.ts";
import { Avatar } from "./Avatar.tsx";
import { emojiFromCode, fullTime, timeOfDay, withEmojiGlyphs } from "./format.ts";

type ReactionGroup = { key: string; emoji: Omit<Reaction, "user_id">; userIds: number[] };

function groupReactions(reactions: readonly Reaction[]): ReactionGroup[] {
  const groups = new Map<string, ReactionGroup>();
  for (const r of reactions) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    const group = groups.get(key) ?? { key, emoji: { emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type }, userIds: [] };
    group.userIds.push(r.user_id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

function Reactions({ message }: { message: Message }) {
  const myId = me.value?.user_id;
  if (message.reactions.length === 0) return null;
  return (
    <div class="reactions">
      {groupReactions(message.reactions).map((g) => {
        const mine = myId !== undefined && g.userIds.includes(myId);
        const glyph = g.emoji.reaction_type === "unicode_emoji" ? emojiFromCode(g.emoji.emoji_code) : null;
        const names = g.userIds.map((id) => users.value.get(id)?.full_name ?? "Unknown user").join(", ");
        return (
          <button
            key={g.key}
            type="button"
            class={`reaction${mine ? " mine" : ""}`}
            aria-pressed={mine}
            aria-label={`${g.emoji.emoji_name}: ${g.userIds.length} (${names})`}
            title={`${names} reacted with :${g.emoji.emoji_name}:`}
            onClick={() => void api.reaction(message.id, mine ? "remove" : "add", g.emoji).catch(() => undefined)}
          >
            <span aria-hidden="true">{glyph ?? `:${g.emoji.emoji_name}:`}</span>
            <span class="reaction-count" aria-hidden="true">
              {g.userIds.length}
            </span>
          </button>
        );
      })}
    </div>
  );
}

/** A message; `continued` hides the sender line under the same sender's previous message. */
export function MessageItem({ message, continued }: { message: Message; continued: boolean }) {
  const selected = selectedId.value === message.id;
  const time = timeOfDay(message.timestamp, settings.value.twenty_four_hour_time);
  const edited = message.last_edit_timestamp !== undefined;
  const sender = users.value.get(message.sender_id);
  const unread = !message.flags.includes("read");
  const starred = message.flags.includes("starred");
  const html = useMemo(() => withEmojiGlyphs(message.content), [message.content]);
  return (
    <article
      class={`message${continued ? " continued" : ""}${selected ? " selected" : ""}${unread ? " unread" : ""}`}
      data-message-id={message.id}
      aria-label={`${message.sender_full_name}, ${time}`}
      onClick={() => (selectedId.value = message.id)}
    >
      <div class="message-gutter">{!continued && <Avatar userId={message.sender_id} name={message.sender_full_name} url={sender?.avatar_url ?? message.avatar_url} />}</div>
      <div class="message-body">
        <div class="message-header">
          {!continued && <span class="sender">{message.sender_full_name}</span>}
          {edited && <span class="edited">(edited)</span>}
          {starred && (
            <span class="star" title="Starred">
              ★
            </span>
          )}
          <time class="message-time" dateTime={new Date(message.timestamp * 1000).toISOString()} title={fullTime(message.timestamp)}>
            {time}
          </time>
        </div>
        <div class={`message-content rendered${message.is_me_message ? " me-message" : ""}`} dangerouslySetInnerHTML={{ __html: html }} />
        <Reactions message={message} />
      </div>
    </article>
  );
}
