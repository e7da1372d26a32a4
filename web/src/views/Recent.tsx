/**
 * Recent conversations: every recent topic and direct conversation, newest first, with its
 * channel, participants, unread count and the time of its last message; a filter box and
 * filters above. A row opens its conversation.
 */
import { useEffect } from "preact/hooks";
import { narrowHash, type Narrow } from "../state/narrow.ts";
import { conversationTitle, filteredConversations, loadOlderRecent, loadRecent, recentComplete, recentFilter, recentStatus, resetRecent, setRecentFilter, type Conversation } from "../state/recent.ts";
import { settings, streamName, subscriptions, userName, users } from "../state/store.ts";
import { ActionStatus, useAction } from "./forms/action.tsx";
import { Avatar } from "./Avatar.tsx";
import { EmptyNote, FilterBox } from "./FilterBox.tsx";
import { dayLabel, fullTime, timeOfDay } from "./format.ts";
import "./Recent.css";

/** Participants shown as avatars; the others are counted ("+3"). */
const AVATARS_SHOWN = 4;

function target(c: Conversation): Narrow {
  return c.streamId === null ? { kind: "dm", userIds: c.userIds } : { kind: "topic", streamId: c.streamId, topic: c.topic };
}

function Participants({ ids }: { ids: readonly number[] }) {
  const names = ids.map(userName).join(", ");
  const extra = ids.length - AVATARS_SHOWN;
  return (
    <span class="recent-participants" title={names}>
      {ids.slice(0, AVATARS_SHOWN).map((id) => (
        <Avatar key={id} userId={id} name={userName(id)} url={users.value.get(id)?.avatar_url} size={24} />
      ))}
      {extra > 0 && <span class="recent-more" aria-hidden="true">+{extra}</span>}
      <span class="recent-names">{names}</span>
    </span>
  );
}

function Row({ c }: { c: Conversation }) {
  const href = narrowHash(target(c), streamName);
  const color = c.streamId === null ? undefined : subscriptions.value.get(c.streamId)?.color;
  return (
    // A click anywhere on the row opens the conversation; the topic's link is the row's control for keyboards.
    <tr class={c.unread > 0 ? "has-unread" : undefined} onClick={(e) => e.target instanceof Element && e.target.closest("a") === null && (location.hash = href)}>
      <td class="recent-channel">
        {c.streamId === null ? (
          <span class="recent-dm">Direct message</span>
        ) : (
          <a href={narrowHash({ kind: "channel", streamId: c.streamId }, streamName)} style={color ? { "--channel-color": color } : undefined}>
            #{streamName(c.streamId)}
          </a>
        )}
      </td>
      <td class="recent-topic">
        <a href={href} aria-label={conversationTitle(c)}>
          {c.streamId === null ? conversationTitle(c) : c.topic === "" ? "general chat" : c.topic}
        </a>
      </td>
      <td class="recent-people">
        <Participants ids={c.senders} />
      </td>
      <td class="recent-unread">
        {c.unread > 0 && (
          <span class="unread-count" aria-label={`${c.unread} unread`}>
            {c.unread}
          </span>
        )}
      </td>
      <td class="recent-time">
        <time dateTime={new Date(c.timestamp * 1000).toISOString()} title={fullTime(c.timestamp)}>
          {dayLabel(c.timestamp)}, {timeOfDay(c.timestamp, settings.value.twenty_four_hour_time)}
        </time>
      </td>
    </tr>
  );
}

function Filters() {
  const f = recentFilter.value;
  const box = (label: string, checked: boolean, key: "unreadOnly" | "participated" | "includeMuted") => (
    <label class="checkbox-label recent-check">
      <input type="checkbox" checked={checked} onChange={(e) => setRecentFilter({ [key]: e.currentTarget.checked })} />
      {label}
    </label>
  );
  return (
    <FilterBox value={f.text} onValue={(text) => setRecentFilter({ text })}>
      {box("Unread only", f.unreadOnly, "unreadOnly")}
      {box("Participated", f.participated, "participated")}
      {box("Include muted", f.includeMuted, "includeMuted")}
    </FilterBox>
  );
}

function Footer() {
  const more = useAction();
  const status = recentStatus.value;
  if (status === "loading") return <p class="view-empty" role="status">Loading conversations…</p>;
  if (status === "failed") {
    return (
      <p class="view-empty" role="alert">
        Could not load the recent conversations.{" "}
        <button type="button" class="button-quiet" onClick={resetRecent}>
          Try again
        </button>
      </p>
    );
  }
  if (recentComplete.value) return null;
  return (
    <div class="recent-footer">
      <button type="button" class="button-quiet" disabled={more.busy} onClick={() => void more.run(loadOlderRecent)}>
        Load older conversations
      </button>
      <ActionStatus action={more} />
    </div>
  );
}

/** The Recent conversations view. */
export function Recent() {
  const status = recentStatus.value;
  useEffect(() => void (status === "idle" && loadRecent()), [status]);
  const list = filteredConversations.value;
  const f = recentFilter.value;
  const filtering = f.text.trim() !== "" || f.unreadOnly || f.participated;
  return (
    <section class="recent" aria-label="Recent conversations">
      <Filters />
      <div class="recent-scroll">
        {list.length > 0 && (
          <table class="recent-table" aria-label="Conversations">
            <thead>
              <tr>
                <th scope="col">Channel</th>
                <th scope="col">Topic</th>
                <th scope="col">Participants</th>
                <th scope="col">Unread</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {list.map((c) => (
                <Row key={c.key} c={c} />
              ))}
            </tbody>
          </table>
        )}
        {list.length === 0 && status === "loaded" && <EmptyNote text={filtering ? "No conversations match your filters." : "No conversations yet."} />}
        <Footer />
      </div>
    </section>
  );
}
