/**
 * A subscribed channel's menu in the sidebar, as upstream's: its settings (the channel settings
 * dialog, views/channel-settings/), pin or unpin it, mute or unmute it, and unsubscribe.
 */
import { leaveChannel } from "../state/channels.ts";
import { openChannelSettings, setSubscriptionSetting } from "../state/channel-settings.ts";
import { errorText } from "../state/errors.ts";
import { ensureGroups } from "../state/groups.ts";
import { showNotice } from "../state/message-menu.ts";
import { streamName, subscriptions } from "../state/store.ts";
import { MenuButton, type MenuItem } from "./ActionMenu.tsx";
import "./TopicMenu.css";

function failed(err: unknown): void {
  showNotice(errorText(err, "Could not change the channel's setting."));
}

function channelItems(streamId: number): MenuItem[] {
  const sub = subscriptions.value.get(streamId);
  const items: MenuItem[] = [{ label: "Channel settings", run: () => openChannelSettings(streamId) }];
  if (sub === undefined) return items;
  items.push(
    { label: sub.pin_to_top ? "Unpin from top" : "Pin to top", run: () => void setSubscriptionSetting(streamId, "pin_to_top", !sub.pin_to_top).catch(failed) },
    { label: sub.is_muted ? "Unmute channel" : "Mute channel", run: () => void setSubscriptionSetting(streamId, "is_muted", !sub.is_muted).catch(failed) },
    { label: "Unsubscribe", run: () => void leaveChannel(streamId).catch(failed) },
  );
  return items;
}

/** The menu's button, named for its channel. */
export function ChannelMenuButton({ streamId }: { streamId: number }) {
  const label = `Channel actions for ${streamName(streamId)}`;
  return (
    <MenuButton label={label} menuLabel={label} wrapperClass="channel-menu" prepare={() => void ensureGroups()} items={() => channelItems(streamId)}>
      <span aria-hidden="true">⋮</span>
    </MenuButton>
  );
}
