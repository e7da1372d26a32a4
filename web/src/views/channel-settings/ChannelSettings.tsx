/**
 * A channel's settings, opened from its menu in the sidebar, the channel browser or the
 * administrators' channel list: its description and subscribers for everyone, the user's own
 * settings when subscribed, and its name, description, privacy and archiving for those who
 * administer it.
 */
import { useEffect, useState } from "preact/hooks";
import { streamSubscribers } from "../../state/admin.ts";
import { canAdministerChannel, channelFor, closeChannelSettings, settingsChannelId } from "../../state/channel-settings.ts";
import { subscriptions, userName } from "../../state/store.ts";
import { ActionStatus, useAction } from "../forms/action.tsx";
import { Modal } from "../forms/Modal.tsx";
import { ChannelEditor } from "./ChannelEditor.tsx";
import { PersonalSettings } from "./PersonalSettings.tsx";
import "./ChannelSettings.css";

/** The subscribers' names, fetched when the dialog opens and when the user joins or leaves. */
function Subscribers({ streamId, subscribed }: { streamId: number; subscribed: boolean }) {
  const [ids, setIds] = useState<readonly number[] | null>(null);
  const action = useAction();
  useEffect(() => void action.run(async () => setIds(await streamSubscribers(streamId))), [streamId, subscribed]);
  const names = (ids ?? []).map(userName).sort((a, b) => a.localeCompare(b));
  return (
    <section class="settings-form" aria-labelledby="channel-subscribers-title">
      <h3 id="channel-subscribers-title">{ids === null ? "Subscribers" : `Subscribers (${ids.length})`}</h3>
      <ActionStatus action={action} />
      <ul class="channel-subscribers" aria-label="Subscribers">
        {names.map((name, i) => (
          <li key={`${name}-${i}`}>{name}</li>
        ))}
      </ul>
    </section>
  );
}

/** The dialog (nothing while closed, or once the channel is gone from the user's view). */
export function ChannelSettingsDialog() {
  const id = settingsChannelId.value;
  const channel = id === null ? undefined : channelFor(id);
  if (id === null || channel === undefined) return null;
  const sub = subscriptions.value.get(id);
  return (
    <Modal titleId="channel-settings-title" title={`Settings for #${channel.name}`} class="channel-settings" onClose={closeChannelSettings}>
      <section class="settings-form" aria-labelledby="channel-about-title">
        <h3 id="channel-about-title">About</h3>
        <p class="channel-description">{channel.description === "" ? "This channel has no description." : channel.description}</p>
        <p class="settings-note">{channel.invite_only ? "Private channel" : channel.is_web_public === true ? "Web-public channel" : "Public channel"}</p>
      </section>
      {sub === undefined ? <p class="settings-note">You are not subscribed to this channel.</p> : <PersonalSettings sub={sub} />}
      {canAdministerChannel(channel) && <ChannelEditor key={id} channel={channel} />}
      <Subscribers streamId={id} subscribed={sub !== undefined} />
    </Modal>
  );
}
