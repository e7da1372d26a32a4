/** The form that creates a channel: its name, description and (when the user may choose) whether it is private. */
import { useState } from "preact/hooks";
import { ActionStatus, Field, useAction } from "./action.tsx";

/**
 * `create` makes the channel; `privateChoice` offers the private checkbox, `privateFirst` is its
 * starting value (a user who may create only private channels).
 */
export function ChannelForm(props: { titleId: string; title: string; privateChoice: boolean; privateFirst?: boolean; create: (name: string, description: string, inviteOnly: boolean) => Promise<void> }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [inviteOnly, setInviteOnly] = useState(props.privateFirst === true);
  const action = useAction();
  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    const created = name.trim();
    if (await action.run(() => props.create(created, description.trim(), inviteOnly), `Channel #${created} created.`)) {
      setName("");
      setDescription("");
    }
  }
  return (
    <form class="settings-form" aria-labelledby={props.titleId} onSubmit={submit}>
      <h3 id={props.titleId}>{props.title}</h3>
      <Field label="Channel name" required maxLength={60} value={name} onValue={setName} />
      <Field label="Description" maxLength={1024} value={description} onValue={setDescription} />
      {props.privateChoice && (
        <label class="checkbox-label">
          <input type="checkbox" checked={inviteOnly} onChange={(e) => setInviteOnly(e.currentTarget.checked)} />
          Private channel (invited subscribers only)
        </label>
      )}
      <ActionStatus action={action} />
      <button type="submit" class="button-primary" disabled={action.busy || name.trim() === ""}>
        Create channel
      </button>
    </form>
  );
}
