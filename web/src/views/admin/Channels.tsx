/** Administrators: creating and archiving channels, who may post to them, their subscribers, and the settings dialog of any channel (renaming, privacy). */
import { useState } from "preact/hooks";
import type { Stream } from "../../api/manage.ts";
import { archiveStream, createStream, loadGroups, loadStreams, peopleChoices, setStreamPermission, setSubscribed, streams, streamSubscribers } from "../../state/admin.ts";
import { openChannelSettings } from "../../state/channel-settings.ts";
import { userName } from "../../state/store.ts";
import { ActionStatus, useAction, useLoad } from "../forms/action.tsx";
import { ChannelForm } from "../forms/ChannelForm.tsx";
import { ArchiveChannelButton } from "../forms/ConfirmButton.tsx";
import { EditableList } from "../forms/EditableList.tsx";
import { GroupSelect } from "./GroupSelect.tsx";

/** "1 subscriber", "3 subscribers". */
function subscriberCount(n: number): string {
  return `${n} ${n === 1 ? "subscriber" : "subscribers"}`;
}

function Subscribers({ stream }: { stream: Stream }) {
  const [ids, setIds] = useState<number[]>([]);
  const reload = async () => setIds(await streamSubscribers(stream.stream_id));
  const loading = useLoad(reload);
  const change = async (userId: number, subscribed: boolean) => {
    await setSubscribed(stream, userId, subscribed);
    await reload();
  };
  return (
    <>
      <EditableList
        label={`Subscribers of #${stream.name}`}
        title="Subscribers"
        items={ids.map((id) => ({ id, name: userName(id) }))}
        empty="No subscribers."
        remove={{ word: "Unsubscribe", run: (id) => change(id, false) }}
        add={{ label: "Add subscriber", placeholder: "Choose a user", button: "Subscribe", choices: peopleChoices(ids), run: (id) => change(id, true) }}
      />
      <ActionStatus action={loading} />
    </>
  );
}

function ChannelEditor({ stream }: { stream: Stream }) {
  const action = useAction();
  return (
    <div class="channel-editor">
      <GroupSelect
        label="Who can post"
        everyone
        value={stream.can_send_message_group}
        disabled={action.busy}
        onChange={(id) => void action.run(() => setStreamPermission(stream.stream_id, "can_send_message_group", id), "Saved.")}
      />
      <Subscribers stream={stream} />
      <ArchiveChannelButton name={stream.name} archive={() => archiveStream(stream.stream_id)} />
      <ActionStatus action={action} />
    </div>
  );
}

/** The channels screen. */
export function ChannelsScreen() {
  const [open, setOpen] = useState<number | null>(null);
  const loading = useLoad(() => Promise.all([loadStreams(), loadGroups()]));
  return (
    <>
      <ChannelForm titleId="create-channel-title" title="Create a channel" privateChoice create={createStream} />
      <section class="settings-form" aria-labelledby="channels-title">
        <h3 id="channels-title">Channels</h3>
        <ActionStatus action={loading} />
        <ul class="admin-list channel-list" aria-label="Channels">
          {streams.value.map((s) => (
            <li key={s.stream_id}>
              <div class="admin-row">
                <span class="admin-name">
                  {s.invite_only ? "🔒 " : "# "}
                  {s.name}
                </span>
                <span class="admin-meta">{subscriberCount(s.subscriber_count ?? 0)}</span>
                <button type="button" class="button-quiet" aria-haspopup="dialog" aria-label={`Settings for #${s.name}`} onClick={() => openChannelSettings(s.stream_id)}>
                  Settings
                </button>
                <button type="button" class="button-quiet" aria-expanded={open === s.stream_id} aria-label={`Manage #${s.name}`} onClick={() => setOpen(open === s.stream_id ? null : s.stream_id)}>
                  Manage
                </button>
              </div>
              {open === s.stream_id && <ChannelEditor stream={s} />}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
