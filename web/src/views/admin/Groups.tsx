/**
 * User groups, for everyone: the organization's groups with their members and subgroups; joining
 * and leaving where a group allows it; and for those the organization or the group lets manage
 * it, creating, renaming, members and subgroups, the simple permission settings and deactivating.
 */
import { useState } from "preact/hooks";
import type { UserGroup } from "../../api/types.ts";
import {
  canCreateGroups,
  canManageGroup,
  changeMembership,
  createGroup,
  customGroups,
  deactivateGroup,
  GROUP_PERMISSIONS,
  isMember,
  mayInGroup,
  saveGroup,
  setGroupPermission,
  setMembership,
} from "../../state/group-changes.ts";
import { refreshGroups, userGroups } from "../../state/groups.ts";
import { peopleChoices } from "../../state/admin.ts";
import { userName } from "../../state/store.ts";
import { ActionStatus, Field, useAction, useLoad } from "../forms/action.tsx";
import { ConfirmButton } from "../forms/ConfirmButton.tsx";
import { EditableList } from "../forms/EditableList.tsx";
import { GroupSelect } from "./GroupSelect.tsx";

function CreateGroupForm() {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const action = useAction();
  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    const created = name.trim();
    if (await action.run(() => createGroup(created, description.trim()), `Group ${created} created.`)) {
      setName("");
      setDescription("");
    }
  }
  return (
    <form class="settings-form" aria-labelledby="create-group-title" onSubmit={submit}>
      <h3 id="create-group-title">Create a group</h3>
      <Field label="Group name" required maxLength={100} value={name} onValue={setName} />
      <Field label="Group description" maxLength={1024} value={description} onValue={setDescription} />
      <ActionStatus action={action} />
      <button type="submit" class="button-primary" disabled={action.busy || name.trim() === ""}>
        Create group
      </button>
    </form>
  );
}

/** A manager's form for the group's name and description. */
function GroupDetails({ group }: { group: UserGroup }) {
  const [name, setName] = useState(group.name);
  const [description, setDescription] = useState(group.description);
  const action = useAction();
  function submit(e: Event): void {
    e.preventDefault();
    const changes = { name: name.trim() === group.name ? undefined : name.trim(), description: description.trim() === group.description ? undefined : description.trim() };
    void action.run(() => saveGroup(group.id, changes), "Saved.");
  }
  return (
    <form class="settings-form" aria-label={`Name and description of ${group.name}`} onSubmit={submit}>
      <Field label="Group name" required maxLength={100} value={name} onValue={setName} />
      <Field label="Group description" maxLength={1024} value={description} onValue={setDescription} />
      <ActionStatus action={action} />
      <button type="submit" class="button-quiet" disabled={action.busy || name.trim() === ""}>
        Save name and description
      </button>
    </form>
  );
}

function Members({ group }: { group: UserGroup }) {
  const members = group.members.map((id) => ({ id, name: userName(id) })).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <EditableList
      label={`Members of ${group.name}`}
      title="Members"
      items={members}
      empty="No members."
      remove={mayInGroup(group, "can_remove_members_group") ? { word: "Remove", run: (id) => changeMembership(group.id, { delete: [id] }) } : undefined}
      add={
        mayInGroup(group, "can_add_members_group")
          ? { label: "Add member", placeholder: "Choose a user", button: "Add", choices: peopleChoices(group.members), run: (id) => changeMembership(group.id, { add: [id] }) }
          : undefined
      }
    />
  );
}

function Subgroups({ group }: { group: UserGroup }) {
  const subgroups = group.direct_subgroup_ids.map((id) => ({ id, name: userGroups.value.get(id)?.name ?? "Unknown group" }));
  const candidates = customGroups.value.filter((g) => g.id !== group.id && !group.direct_subgroup_ids.includes(g.id)).map((g) => ({ value: g.id, label: g.name }));
  return (
    <EditableList
      label={`Subgroups of ${group.name}`}
      title="Subgroups"
      items={subgroups}
      empty="No subgroups."
      remove={canManageGroup(group) ? { word: "Remove", run: (id) => changeMembership(group.id, { delete_subgroups: [id] }) } : undefined}
      add={
        mayInGroup(group, "can_add_members_group")
          ? { label: "Add subgroup", placeholder: "Choose a group", button: "Add", choices: candidates, run: (id) => changeMembership(group.id, { add_subgroups: [id] }) }
          : undefined
      }
    />
  );
}

function Permissions({ group }: { group: UserGroup }) {
  const action = useAction();
  return (
    <fieldset>
      <legend>Permissions</legend>
      {GROUP_PERMISSIONS.map((p) => (
        <GroupSelect
          key={p.name}
          label={p.label}
          everyone={p.everyone}
          value={group[p.name]}
          disabled={action.busy}
          onChange={(id) => void action.run(() => setGroupPermission(group.id, p.name, id), "Saved.")}
        />
      ))}
      <ActionStatus action={action} />
    </fieldset>
  );
}

/** What the group's row opens: read-only for those who cannot change it. */
function GroupPanel({ group }: { group: UserGroup }) {
  const manage = canManageGroup(group);
  return (
    <section class="channel-editor" aria-label={`Group ${group.name}`}>
      {group.description !== "" && !manage && <p class="settings-note">{group.description}</p>}
      {manage && <GroupDetails group={group} />}
      <Members group={group} />
      <Subgroups group={group} />
      {manage && <Permissions group={group} />}
      {manage && (
        <ConfirmButton
          label="Deactivate group"
          question={`Deactivate ${group.name}?`}
          detail="It can no longer be mentioned or given permissions."
          confirmLabel="Yes, deactivate"
          run={() => deactivateGroup(group.id)}
        />
      )}
    </section>
  );
}

/** Join or Leave, where the group allows it. */
function MembershipButton({ group }: { group: UserGroup }) {
  const action = useAction();
  const member = isMember(group);
  if (!mayInGroup(group, member ? "can_leave_group" : "can_join_group")) return null;
  return (
    <>
      <button type="button" class="button-quiet" aria-label={`${member ? "Leave" : "Join"} ${group.name}`} disabled={action.busy} onClick={() => void action.run(() => setMembership(group.id, !member))}>
        {member ? "Leave" : "Join"}
      </button>
      <ActionStatus action={action} />
    </>
  );
}

function GroupRow({ group, open, onToggle }: { group: UserGroup; open: boolean; onToggle: () => void }) {
  const count = group.members.length;
  return (
    <li>
      <div class="admin-row">
        <span class="admin-name">{group.name}</span>
        <span class="admin-meta">
          {count} {count === 1 ? "member" : "members"}
        </span>
        <MembershipButton group={group} />
        <button type="button" class="button-quiet" aria-expanded={open} aria-label={`Details of ${group.name}`} onClick={onToggle}>
          {canManageGroup(group) ? "Edit" : "View"}
        </button>
      </div>
      {open && <GroupPanel key={group.id} group={group} />}
    </li>
  );
}

/** The screen; the groups are fetched afresh when it opens (no event tells of their changes). */
export function GroupsScreen() {
  const [open, setOpen] = useState<number | null>(null);
  const loading = useLoad(refreshGroups);
  const groups = customGroups.value;
  return (
    <>
      {canCreateGroups.value && <CreateGroupForm />}
      <section class="settings-form" aria-labelledby="groups-title">
        <h3 id="groups-title">User groups</h3>
        <ActionStatus action={loading} />
        {groups.length === 0 ? (
          <p class="settings-note">There are no user groups yet.</p>
        ) : (
          <ul class="admin-list" aria-label="User groups">
            {groups.map((g) => (
              <GroupRow key={g.id} group={g} open={open === g.id} onToggle={() => setOpen(open === g.id ? null : g.id)} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
