/**
 * The Inbox: unread direct conversations, then each channel with its unread topics, with their
 * counts; each group collapses, each row opens its conversation. A filter box narrows the list.
 */
import { channelGroup, collapsed, DMS_GROUP, inbox, inboxFilter, toggleGroup, type InboxChannel, type InboxDm, type InboxTopic } from "../state/inbox.ts";
import { narrowHash } from "../state/narrow.ts";
import { channels, dmTitle, streamName, subscriptions, users } from "../state/store.ts";
import { Avatar } from "./Avatar.tsx";
import { EmptyNote, FilterBox } from "./FilterBox.tsx";
import "./Inbox.css";

function Count({ n, mentioned }: { n: number; mentioned: boolean }) {
  return (
    <span class="inbox-counts" aria-hidden="true">
      {mentioned && <span class="inbox-mention">@</span>}
      <span class="unread-count">{n}</span>
    </span>
  );
}

function unreadLabel(name: string, n: number, mentioned: boolean): string {
  return `${name}, ${n} unread${mentioned ? ", mentions you" : ""}`;
}

function DmRow({ dm }: { dm: InboxDm }) {
  const name = dmTitle(dm.userIds);
  const single = dm.userIds.length === 1 ? dm.userIds[0] : null;
  return (
    <li>
      <a class="inbox-row" href={narrowHash({ kind: "dm", userIds: dm.userIds })} aria-label={unreadLabel(name, dm.count, dm.mentioned)}>
        {single !== null ? (
          <Avatar userId={single} name={name} url={users.value.get(single)?.avatar_url} size={22} />
        ) : (
          <span class="inbox-icon" aria-hidden="true">
            ●
          </span>
        )}
        <span class="inbox-name">{name}</span>
        <Count n={dm.count} mentioned={dm.mentioned} />
      </a>
    </li>
  );
}

function TopicRow({ streamId, topic }: { streamId: number; topic: InboxTopic }) {
  const name = topic.topic === "" ? "general chat" : topic.topic;
  return (
    <li>
      <a class="inbox-row inbox-topic" href={narrowHash({ kind: "topic", streamId, topic: topic.topic }, streamName)} aria-label={unreadLabel(name, topic.count, topic.mentioned)}>
        <span class={`inbox-name${topic.topic === "" ? " inbox-general" : ""}`}>{name}</span>
        <Count n={topic.count} mentioned={topic.mentioned} />
      </a>
    </li>
  );
}

/** The button that collapses or expands a group (its list is `listId`). */
function Toggle({ group, listId, label }: { group: string; listId: string; label: string }) {
  const open = !collapsed.value.has(group);
  return (
    <button type="button" class="inbox-toggle button-quiet" aria-expanded={open} aria-controls={listId} aria-label={label} onClick={() => toggleGroup(group)}>
      <span class={`inbox-chevron${open ? " open" : ""}`} aria-hidden="true">
        ›
      </span>
    </button>
  );
}

function DmGroup({ dms }: { dms: InboxDm[] }) {
  const open = !collapsed.value.has(DMS_GROUP);
  const count = dms.reduce((n, d) => n + d.count, 0);
  const mentioned = dms.some((d) => d.mentioned);
  return (
    <section class="inbox-group" aria-label="Direct messages">
      <div class="inbox-header">
        <Toggle group={DMS_GROUP} listId="inbox-dms-list" label="Direct message conversations" />
        <h3 class="inbox-title">
          <a class="inbox-channel" href={narrowHash({ kind: "search", terms: [{ operator: "is", operand: "dm", negated: false }] })} aria-label={unreadLabel("Direct messages", count, mentioned)}>
            <span class="inbox-name">Direct messages</span>
            <Count n={count} mentioned={mentioned} />
          </a>
        </h3>
      </div>
      {open && (
        <ul id="inbox-dms-list" class="inbox-rows">
          {dms.map((d) => (
            <DmRow key={d.key} dm={d} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ChannelGroup({ channel }: { channel: InboxChannel }) {
  const group = channelGroup(channel.streamId);
  const open = !collapsed.value.has(group);
  const name = streamName(channel.streamId);
  const info = subscriptions.value.get(channel.streamId) ?? channels.value.get(channel.streamId);
  const mentioned = channel.topics.some((t) => t.mentioned);
  const listId = `inbox-topics-${channel.streamId}`;
  return (
    <section class="inbox-group" aria-label={`#${name}`}>
      <div class="inbox-header" style={{ "--channel-color": subscriptions.value.get(channel.streamId)?.color ?? "var(--border)" }}>
        <Toggle group={group} listId={listId} label={`Topics in #${name}`} />
        <h3 class="inbox-title">
          <a class="inbox-channel" href={narrowHash({ kind: "channel", streamId: channel.streamId }, streamName)} aria-label={unreadLabel(`#${name}`, channel.count, mentioned)}>
            <span class="inbox-icon" aria-hidden="true">
              {info?.invite_only ? "🔒" : "#"}
            </span>
            <span class="inbox-name">{name}</span>
            <Count n={channel.count} mentioned={mentioned} />
          </a>
        </h3>
      </div>
      {open && (
        <ul id={listId} class="inbox-rows">
          {channel.topics.map((t) => (
            <TopicRow key={t.topic.toLowerCase()} streamId={channel.streamId} topic={t} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The Inbox view. */
export function Inbox() {
  const { dms, channels: list } = inbox.value;
  const filtering = inboxFilter.value.trim() !== "";
  return (
    <section class="inbox" aria-label="Inbox">
      <FilterBox value={inboxFilter.value} onValue={(text) => (inboxFilter.value = text)} />
      <div class="inbox-scroll">
        {dms.length === 0 && list.length === 0 && (
          <EmptyNote text={filtering ? "No unread conversations match your filter." : "You have no unread messages. Well done!"} />
        )}
        {dms.length > 0 && <DmGroup dms={dms} />}
        {list.map((c) => (
          <ChannelGroup key={c.streamId} channel={c} />
        ))}
      </div>
    </section>
  );
}
