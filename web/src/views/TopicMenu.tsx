/**
 * A topic's menu, in the sidebar and on a recipient bar, as upstream's: follow or unfollow it,
 * mute or unmute it (POST /user_topics; the change arrives as a `user_topic` event), and move the
 * whole topic where the organization allows. `TopicMarks` shows a followed or muted topic's mark.
 */
import { errorText } from "../state/errors.ts";
import { ensureGroups } from "../state/groups.ts";
import { messageDialog, showNotice } from "../state/message-menu.ts";
import { moveRights } from "../state/message-rules.ts";
import { isFollowed, isTopicMuted, toggleFollow, toggleTopicMute } from "../state/muting.ts";
import { me } from "../state/store.ts";
import { MenuButton, type MenuItem } from "./ActionMenu.tsx";
import "./TopicMenu.css";

function failed(err: unknown): void {
  showNotice(errorText(err, "Could not change the topic's setting."));
}

function topicItems(streamId: number, topic: string, messageId: number | undefined): MenuItem[] {
  const items: MenuItem[] = [
    { label: isFollowed(streamId, topic) ? "Unfollow topic" : "Follow topic", run: () => void toggleFollow(streamId, topic).catch(failed) },
    { label: isTopicMuted(streamId, topic) ? "Unmute topic" : "Mute topic", run: () => void toggleTopicMute(streamId, topic).catch(failed) },
  ];
  const myId = me.value?.user_id;
  const rights = myId === undefined ? null : moveRights(myId);
  if (messageId !== undefined && rights !== null && (rights.topics || rights.channels)) {
    items.push({ label: "Move topic", run: () => (messageDialog.value = { kind: "move", target: { messageId, streamId, topic, wholeTopic: true } }) });
  }
  return items;
}

/** The menu's button; `messageId`, a message of the topic, lets the topic be moved. */
export function TopicMenuButton({ streamId, topic, messageId }: { streamId: number; topic: string; messageId?: number }) {
  const name = topic === "" ? "general chat" : topic;
  return (
    <MenuButton label={`Topic actions for ${name}`} menuLabel={`Topic actions for ${name}`} wrapperClass="topic-menu" prepare={() => void ensureGroups()} items={() => topicItems(streamId, topic, messageId)}>
      <span aria-hidden="true">⋮</span>
    </MenuButton>
  );
}

/** A followed topic's mark, or a muted topic's. */
export function TopicMarks({ streamId, topic }: { streamId: number; topic: string }) {
  if (isFollowed(streamId, topic)) {
    return (
      <span class="topic-mark" role="img" aria-label="Followed topic" title="You follow this topic">
        ◉
      </span>
    );
  }
  if (isTopicMuted(streamId, topic)) {
    return (
      <span class="topic-mark" role="img" aria-label="Muted topic" title="You muted this topic">
        🔇
      </span>
    );
  }
  return null;
}
