/** Administrators: the organization's name, description, the Welcome Bot's note to new users and main permissions (PATCH /realm). */
import { useState } from "preact/hooks";
import { loadGroups, realm, REALM_PERMISSIONS, saveRealm, sendWelcomeTest, type RealmPermission } from "../../state/admin.ts";
import { myRole, ROLE } from "../../state/settings.ts";
import { ActionStatus, Field, useAction, useLoad } from "../forms/action.tsx";
import { GroupSelect } from "./GroupSelect.tsx";

/** The organization screen. */
export function OrganizationScreen() {
  const saved = realm.value;
  const [name, setName] = useState(saved.name);
  const [description, setDescription] = useState(saved.description);
  const [welcomeText, setWelcomeText] = useState(saved.welcomeText);
  const [changed, setChanged] = useState<Partial<Record<RealmPermission, number>>>({});
  const loading = useLoad(loadGroups);
  const owner = myRole.value === ROLE.owner;
  const action = useAction();
  const test = useAction();

  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    const changes = {
      name: name.trim() === saved.name ? undefined : name.trim(),
      description: description === saved.description ? undefined : description,
      welcomeText: welcomeText === saved.welcomeText ? undefined : welcomeText,
      permissions: changed,
    };
    if (await action.run(() => saveRealm(changes), "The organization settings were saved.")) setChanged({});
  }

  return (
    <form class="settings-form" aria-labelledby="org-title" onSubmit={submit}>
      <h3 id="org-title">Organization</h3>
      <Field label="Organization name" required maxLength={40} value={name} onValue={setName} />
      <label>
        Organization description
        <textarea rows={3} maxLength={1000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <label>
        Welcome note for new users
        <textarea rows={4} maxLength={8000} value={welcomeText} onInput={(e) => setWelcomeText(e.currentTarget.value)} />
      </label>
      <p class="settings-note">The Welcome Bot sends this note (Markdown) to everyone who joins, after its own introduction. Leave it empty to send none.</p>
      <button
        type="button"
        class="button-quiet"
        disabled={test.busy || welcomeText === ""}
        onClick={() => void test.run(() => sendWelcomeTest(welcomeText), "The Welcome Bot sent you the note: see your direct messages.")}
      >
        Send me a test
      </button>
      <ActionStatus action={test} />
      <fieldset>
        <legend>Permissions</legend>
        {!owner && <p class="settings-note">Only owners may change who can invite.</p>}
        <ActionStatus action={loading} />
        {REALM_PERMISSIONS.map((p) => (
          <GroupSelect
            key={p.name}
            label={p.label}
            everyone={p.everyone}
            disabled={p.ownersOnly && !owner}
            value={changed[p.name] ?? saved.permissions[p.name]}
            onChange={(id) => setChanged({ ...changed, [p.name]: id })}
          />
        ))}
      </fieldset>
      <ActionStatus action={action} />
      <button type="submit" class="button-primary" disabled={action.busy || name.trim() === ""}>
        Save changes
      </button>
    </form>
  );
}
