/**
 * One message of the feed: avatar, sender (a button opening the sender's card), time, rendered
 * content, edited mark, reactions and its actions (toolbar and menu, the emoji picker, the
 * in-place editor, the delete confirmation). A muted sender's message is collapsed until revealed.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Message, Reaction } from "../api/types.ts";
import { ensureEmoji, realmEmojiById, spokenEmojiName, type EmojiChoice } from "../state/emoji.ts";
import { selectedId } from "../state/feed.ts";
import { toggleReaction, type ReactionEmoji } from "../state/message-changes.ts";
import { editingId, openFor, reactingId } from "../state/message-menu.ts";
import { isUserMuted } from "../state/muting.ts";
import { me, settings, users } from "../state/store.ts";
import { Avatar } from "./Avatar.tsx";
import { EmojiGlyph, EmojiPicker } from "./EmojiPicker.tsx";
import { fullTime, timeOfDay, withEmojiGlyphs } from "./format.ts";
import { DeleteDialog, MessageToolbar } from "./MessageActions.tsx";
import { MessageEditor } from "./MessageEditor.tsx";
import { MutedMessage } from "./MutedMessage.tsx";
import { StatusMark } from "./StatusEmoji.tsx";
import { toggleUserCard, useMentionButtons } from "./UserCard.tsx";
import { UserMenuButton } from "./UserMenu.tsx";
import "./code-highlight.css";
import { useLinksInNewTabs } from "./RenderedHtml.tsx";

type ReactionGroup = { key: string; emoji: ReactionEmoji; userIds: number[] };

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

function ReactionGlyph({ emoji }: { emoji: ReactionEmoji }) {
  const custom = emoji.reaction_type === "realm_emoji" ? realmEmojiById.value.get(emoji.emoji_code) : undefined;
  useEffect(() => {
    if (emoji.reaction_type === "realm_emoji" && custom === undefined) void ensureEmoji();
  }, [emoji.reaction_type, custom]);
  if (emoji.reaction_type === "unicode_emoji") return <EmojiGlyph emoji={{ name: emoji.emoji_name, emoji_code: emoji.emoji_code, reaction_type: "unicode_emoji" }} />;
  if (custom) return <img class="emoji-img" src={custom.url} alt="" />;
  return <span class="emoji-glyph">{`:${emoji.emoji_name}:`}</span>;
}

function Reactions({ message }: { message: Message }) {
  const myId = me.value?.user_id;
  if (message.reactions.length === 0 || myId === undefined) return null;
  return (
    <div class="reactions" role="group" aria-label="Reactions">
      {groupReactions(message.reactions).map((g) => {
        const mine = g.userIds.includes(myId);
        const names = g.userIds.map((id) => (id === myId ? "You" : (users.value.get(id)?.full_name ?? "Unknown user"))).join(", ");
        return (
          <button
            key={g.key}
            type="button"
            class={`reaction${mine ? " mine" : ""}`}
            aria-pressed={mine}
            aria-label={`${spokenEmojiName(g.emoji.emoji_name)}: ${g.userIds.length}${mine ? ", you reacted" : ""}`}
            title={`${names} reacted with :${g.emoji.emoji_name}:`}
            onClick={(e) => {
              e.stopPropagation();
              toggleReaction(message, g.emoji, myId);
            }}
          >
            <span aria-hidden="true">
              <ReactionGlyph emoji={g.emoji} />
            </span>
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
  const editing = editingId.value === message.id;
  const picking = reactingId.value === message.id;
  const setEditing = (on: boolean) => openFor(editingId, message.id, on);
  const setPicking = (on: boolean) => openFor(reactingId, message.id, on);
  const [deleting, setDeleting] = useState(false);
  const [revealed, setRevealed] = useState(false);
  const selected = selectedId.value === message.id;
  const time = timeOfDay(message.timestamp, settings.value.twenty_four_hour_time);
  const edited = message.last_edit_timestamp !== undefined;
  // Zulip marks a message moved to another topic or channel, when not also edited.
  const moved = !edited && message.last_moved_timestamp !== undefined;
  const sender = users.value.get(message.sender_id);
  const unread = !message.flags.includes("read");
  const starred = message.flags.includes("starred");
  const html = useMemo(() => withEmojiGlyphs(message.content), [message.content]);
  const contentRef = useRef<HTMLDivElement>(null);
  useLinksInNewTabs(contentRef, editing ? "" : html);
  useMentionButtons(contentRef, editing ? "" : html);
  const myId = me.value?.user_id;
  const hidden = !revealed && message.sender_id !== myId && isUserMuted(message.sender_id);
  const pick = (emoji: EmojiChoice) => {
    setPicking(false);
    if (myId !== undefined) toggleReaction(message, { emoji_name: emoji.name, emoji_code: emoji.emoji_code, reaction_type: emoji.reaction_type }, myId);
  };
  return (
    <article
      class={`message${continued ? " continued" : ""}${selected ? " selected" : ""}${unread ? " unread" : ""}`}
      data-message-id={message.id}
      aria-label={`${hidden ? "Muted user" : message.sender_full_name}, ${time}`}
      onClick={() => (selectedId.value = message.id)}
    >
      <div class="message-gutter">
        {!continued && (hidden ? <Avatar userId={0} name="?" url={null} /> : <span onClick={(e) => toggleUserCard(message.sender_id, e.currentTarget)}><Avatar userId={message.sender_id} name={message.sender_full_name} url={sender?.avatar_url ?? message.avatar_url} /></span>)}
      </div>
      <div class="message-body">
        <div class={`message-header${edited || moved || starred ? " marked" : ""}`}>
          {!continued &&
            (hidden ? (
              <span class="sender">Muted user</span>
            ) : (
              <>
                <UserMenuButton userId={message.sender_id} label={message.sender_full_name} class="sender sender-button">
                  {message.sender_full_name}
                </UserMenuButton>
                <StatusMark userId={message.sender_id} />
              </>
            ))}
          {edited && (
            <span class="edited" title={message.last_edit_timestamp === undefined ? undefined : `Edited ${fullTime(message.last_edit_timestamp)}`}>
              (edited)
            </span>
          )}
          {moved && (
            <span class="edited" title={message.last_moved_timestamp === undefined ? undefined : `Moved ${fullTime(message.last_moved_timestamp)}`}>
              (moved)
            </span>
          )}
          {starred && (
            <span class="star" title="Starred">
              ★
            </span>
          )}
          <time class="message-time" dateTime={new Date(message.timestamp * 1000).toISOString()} title={fullTime(message.timestamp)}>
            {time}
          </time>
        </div>
        {hidden ? (
          <MutedMessage onReveal={() => setRevealed(true)} />
        ) : editing ? (
          <MessageEditor message={message} onDone={() => setEditing(false)} />
        ) : (
          <div ref={contentRef} class={`message-content rendered${message.is_me_message ? " me-message" : ""}`} dangerouslySetInnerHTML={{ __html: html }} />
        )}
        {!hidden && <Reactions message={message} />}
        {picking && <EmojiPicker label="Add emoji reaction" onPick={pick} onClose={() => setPicking(false)} />}
      </div>
      <MessageToolbar message={message} onReact={() => setPicking(!picking)} onEdit={() => setEditing(true)} onDelete={() => setDeleting(true)} />
      {deleting && <DeleteDialog message={message} onClose={() => setDeleting(false)} />}
    </article>
  );
}
