/** For those who administer a channel: its name, description and privacy, and archiving it; the server's refusals are shown. */
import { useState } from "preact/hooks";
import type { Channel } from "../../api/types.ts";
import { archiveChannel, privacyChoices, privacyOf, saveChannel, type Privacy } from "../../state/channel-settings.ts";
import { ActionStatus, Field, useAction } from "../forms/action.tsx";
import { ArchiveChannelButton } from "../forms/ConfirmButton.tsx";

/** The form; it starts from the channel as it was when opened, and sends only what changed. */
export function ChannelEditor({ channel }: { channel: Channel }) {
  const [name, setName] = useState(channel.name);
  const [description, setDescription] = useState(channel.description);
  const [privacy, setPrivacy] = useState<Privacy>(privacyOf(channel));
  const action = useAction();
  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    const changes = {
      name: name.trim() === channel.name ? undefined : name.trim(),
      description: description.trim() === channel.description ? undefined : description.trim(),
      privacy: privacy === privacyOf(channel) ? undefined : privacy,
    };
    await action.run(() => saveChannel(channel.stream_id, changes), "The channel settings were saved.");
  }
  return (
    <form class="settings-form" aria-labelledby="channel-edit-title" onSubmit={submit}>
      <h3 id="channel-edit-title">Channel settings</h3>
      <Field label="Channel name" required maxLength={60} value={name} onValue={setName} />
      <label>
        Description
        <textarea rows={2} maxLength={1024} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <fieldset>
        <legend>Who can access the channel</legend>
        {privacyChoices(channel).map((p) => (
          <label key={p.value} class="checkbox-label">
            <input type="radio" name="channel-privacy" value={p.value} checked={privacy === p.value} onChange={() => setPrivacy(p.value)} />
            {p.label}
          </label>
        ))}
      </fieldset>
      <ActionStatus action={action} />
      <div class="button-row">
        <button type="submit" class="button-primary" disabled={action.busy || name.trim() === ""}>
          Save changes
        </button>
        <ArchiveChannelButton name={channel.name} archive={() => archiveChannel(channel.stream_id)} />
      </div>
    </form>
  );
}
