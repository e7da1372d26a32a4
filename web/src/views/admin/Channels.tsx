/** Administrators: creating and archiving channels, who may post to them, and their subscribers. */
import { useEffect, useState } from "preact/hooks";
import type { Stream } from "../../api/manage.ts";
import { archiveStream, createStream, loadGroups, loadStreams, setStreamPermission, setSubscribed, streams, streamSubscribers } from "../../state/admin.ts";
import { userName, users } from "../../state/store.ts";
import { ActionStatus, Options, useAction, useLoad } from "../forms/action.tsx";
import { ChannelForm } from "../forms/ChannelForm.tsx";
import { GroupSelect } from "./GroupSelect.tsx";

/** "1 subscriber", "3 subscribers". */
function subscriberCount(n: number): string {
  return `${n} ${n === 1 ? "subscriber" : "subscribers"}`;
}

function Subscribers({ stream }: { stream: Stream }) {
  const [ids, setIds] = useState<number[] | null>(null);
  const [adding, setAdding] = useState("");
  const action = useAction();
  const reload = () => action.run(async () => setIds(await streamSubscribers(stream.stream_id)));
  useEffect(() => void reload(), [stream.stream_id]);
  const change = async (userId: number, subscribed: boolean) => {
    if (await action.run(() => setSubscribed(stream, userId, subscribed))) await reload();
  };
  const others = [...users.value.values()].filter((u) => !u.is_bot && u.is_active !== false && !(ids ?? []).includes(u.user_id));
  return (
    <section aria-label={`Subscribers of #${stream.name}`}>
      <h4>Subscribers</h4>
      <ul class="admin-list">
        {(ids ?? []).map((id) => (
          <li key={id}>
            <span>{userName(id)}</span>
            <button type="button" class="button-quiet" aria-label={`Unsubscribe ${userName(id)}`} disabled={action.busy} onClick={() => void change(id, false)}>
              Unsubscribe
            </button>
          </li>
        ))}
      </ul>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (adding !== "") void change(Number(adding), true).then(() => setAdding(""));
        }}
      >
        <label>
          Add subscriber
          <select value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
            <option value="">Choose a user</option>
            <Options choices={others.map((u) => ({ value: u.user_id, label: u.full_name }))} />
          </select>
        </label>
        <button type="submit" class="button-quiet" disabled={action.busy || adding === ""}>
          Subscribe
        </button>
      </form>
      <ActionStatus action={action} />
    </section>
  );
}

function ChannelEditor({ stream }: { stream: Stream }) {
  const [confirming, setConfirming] = useState(false);
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
      {confirming ? (
        <div class="confirm-row" role="group" aria-label={`Archive #${stream.name}?`}>
          <span>Archive #{stream.name}? Its messages stay readable; nobody can post to it.</span>
          <button type="button" class="button-danger" disabled={action.busy} onClick={() => void action.run(() => archiveStream(stream.stream_id))}>
            Yes, archive
          </button>
          <button type="button" class="button-quiet" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" class="button-quiet" onClick={() => setConfirming(true)}>
          Archive channel
        </button>
      )}
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
