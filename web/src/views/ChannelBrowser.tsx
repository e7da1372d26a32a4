/**
 * Channels for everyone: the sidebar's "Browse channels" dialog (every channel the user can see,
 * to subscribe to or leave, and a new channel where the organization lets the user create one),
 * and the notice over the compose box in a channel the user has not joined, with its Subscribe
 * button.
 */
import { browsableChannels, browserOpen, canCreatePrivate, canCreatePublic, createChannel, isSubscribed, joinChannel, leaveChannel, showBrowser, type BrowsedChannel } from "../state/channels.ts";
import { openChannelSettings } from "../state/channel-settings.ts";
import { narrow } from "../state/feed.ts";
import { narrowHash } from "../state/narrow.ts";
import { channels, streamName } from "../state/store.ts";
import { ActionStatus, useAction } from "./forms/action.tsx";
import { ChannelForm } from "./forms/ChannelForm.tsx";
import { Modal } from "./forms/Modal.tsx";

/** Subscribe or leave: one button, named for its channel. */
function SubscribeButton({ channel, subscribed }: { channel: { stream_id: number; name: string }; subscribed: boolean }) {
  const action = useAction();
  const label = subscribed ? `Unsubscribe from #${channel.name}` : `Subscribe to #${channel.name}`;
  return (
    <>
      <button
        type="button"
        class={subscribed ? "button-quiet" : "button-primary"}
        aria-label={label}
        disabled={action.busy}
        onClick={() => void action.run(() => (subscribed ? leaveChannel(channel.stream_id) : joinChannel(channel.stream_id)))}
      >
        {subscribed ? "Unsubscribe" : "Subscribe"}
      </button>
      <ActionStatus action={action} />
    </>
  );
}

function ChannelRow({ channel }: { channel: BrowsedChannel }) {
  return (
    <li class="admin-row">
      <a class="admin-name" href={narrowHash({ kind: "channel", streamId: channel.stream_id }, streamName)} onClick={() => showBrowser(false)}>
        {channel.invite_only ? "🔒 " : "# "}
        {channel.name}
      </a>
      <span class="admin-meta">{channel.description}</span>
      <button type="button" class="button-quiet" aria-haspopup="dialog" aria-label={`Settings for #${channel.name}`} onClick={() => openChannelSettings(channel.stream_id)}>
        Settings
      </button>
      <SubscribeButton channel={channel} subscribed={channel.subscribed} />
    </li>
  );
}

/** The sidebar's button that opens the channel browser. */
export function BrowseButton() {
  return (
    <button type="button" class="button-quiet sidebar-button" aria-haspopup="dialog" onClick={() => showBrowser(true)}>
      Browse channels
    </button>
  );
}

/** The channel browser (nothing while closed). */
export function ChannelBrowser() {
  if (!browserOpen.value) return null;
  const list = browsableChannels.value;
  return (
    <Modal titleId="browse-title" title="Browse channels" class="channel-browser" onClose={() => showBrowser(false)}>
      {list.length === 0 ? (
        <p class="settings-note">There are no channels you can see yet.</p>
      ) : (
        <ul class="admin-list" aria-label="All channels">
          {list.map((c) => (
            <ChannelRow key={c.stream_id} channel={c} />
          ))}
        </ul>
      )}
      {(canCreatePublic.value || canCreatePrivate.value) && (
        <ChannelForm titleId="new-channel-title" title="New channel" privateChoice={canCreatePublic.value && canCreatePrivate.value} privateFirst={!canCreatePublic.value} create={createChannel} />
      )}
    </Modal>
  );
}

/** Over the compose box: the channel being read is one the user has not joined. */
export function SubscribeNotice() {
  const n = narrow.value;
  if (n.kind !== "channel" && n.kind !== "topic") return null;
  const channel = channels.value.get(n.streamId);
  if (channel === undefined || isSubscribed(n.streamId) || channel.is_archived) return null;
  return (
    <div class="subscribe-notice" role="region" aria-label="Not subscribed">
      <span>You are not subscribed to #{channel.name}.</span>
      <SubscribeButton channel={channel} subscribed={false} />
    </div>
  );
}
