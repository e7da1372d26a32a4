/**
 * Inviting people (email invitations, reusable links to copy) and, for administrators, the
 * organization's users: roles, deactivating and reactivating.
 */
import { useState } from "preact/hooks";
import type { Invite, Member } from "../../api/manage.ts";
import { canCreateInviteLinks, canSendInvites, createInviteLink, emailSending, inviteByEmail, invites, loadInvites, loadMembers, members, revokeInvite, setActive, setRole } from "../../state/admin.ts";
import { isAdmin, myRole, ROLE } from "../../state/settings.ts";
import { defaultChannelIds } from "../../state/channels.ts";
import { me, sortedSubscriptions, subscriptions } from "../../state/store.ts";
import { ActionStatus, NumberSelect, useAction, useLoad } from "../forms/action.tsx";

const ROLE_NAMES: ReadonlyArray<{ value: number; label: string }> = [
  { value: ROLE.owner, label: "Owner" },
  { value: ROLE.administrator, label: "Administrator" },
  { value: ROLE.moderator, label: "Moderator" },
  { value: ROLE.member, label: "Member" },
  { value: ROLE.guest, label: "Guest" },
];

/** The roles this user may give: owners any, administrators up to administrator, others member or guest. */
function grantableRoles(): typeof ROLE_NAMES {
  const mine = myRole.value;
  const highest = mine === ROLE.owner ? ROLE.owner : mine === ROLE.administrator ? ROLE.administrator : ROLE.member;
  return ROLE_NAMES.filter((r) => r.value >= highest);
}

function roleName(role: number): string {
  return ROLE_NAMES.find((r) => r.value === role)?.label ?? "Member";
}

/** The invitation link just made, to copy. */
function LinkBox({ link }: { link: string }) {
  const [copied, setCopied] = useState(false);
  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    } catch {
      // No clipboard access (an http:// site): select the text so the user can copy it.
      const input = document.getElementById("invite-link");
      if (input instanceof HTMLInputElement) input.select();
    }
  }
  return (
    <div class="link-box">
      <label>
        Invitation link
        <input id="invite-link" type="text" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <button type="button" class="button-quiet" onClick={() => void copy()}>
        {copied ? "Copied" : "Copy link"}
      </button>
    </div>
  );
}

function InviteForm() {
  const [emails, setEmails] = useState("");
  const [inviteAs, setInviteAs] = useState<number>(ROLE.member);
  // The organization's default channels are checked to begin with, as upstream's form does.
  const [streamIds, setStreamIds] = useState<number[]>(() => defaultChannelIds.value.filter((id) => subscriptions.value.has(id)));
  const [link, setLink] = useState<string | null>(null);
  const action = useAction();
  const mailing = canSendInvites.value;
  const linking = canCreateInviteLinks.value;
  const toggle = (id: number, on: boolean) => setStreamIds(on ? [...streamIds, id] : streamIds.filter((s) => s !== id));
  async function sendEmails(e: Event): Promise<void> {
    e.preventDefault();
    if (await action.run(() => inviteByEmail(emails, inviteAs, streamIds), "Invitations sent by email.")) setEmails("");
  }
  async function makeLink(): Promise<void> {
    setLink(null);
    await action.run(async () => setLink(await createInviteLink(inviteAs, streamIds)), "Invitation link created: anyone with it can sign up.");
  }
  return (
    <form class="settings-form" aria-labelledby="invite-title" onSubmit={sendEmails}>
      <h3 id="invite-title">Invite people</h3>
      {mailing ? (
        <label>
          Email addresses
          <textarea rows={2} placeholder="one@example.com, two@example.com" value={emails} onInput={(e) => setEmails(e.currentTarget.value)} />
        </label>
      ) : (
        !emailSending.value && <p class="settings-note">This server does not send email (SMTP_URL is not set): create an invitation link and share it.</p>
      )}
      <label>
        Invite as
        <NumberSelect value={inviteAs} choices={grantableRoles()} onValue={setInviteAs} />
      </label>
      <fieldset>
        <legend>Channels they join</legend>
        {sortedSubscriptions.value.map((s) => (
          <label key={s.stream_id} class="checkbox-label">
            <input type="checkbox" checked={streamIds.includes(s.stream_id)} onChange={(e) => toggle(s.stream_id, e.currentTarget.checked)} />
            {s.name}
          </label>
        ))}
      </fieldset>
      <ActionStatus action={action} />
      <div class="button-row">
        {mailing && (
          <button type="submit" class="button-primary" disabled={action.busy || emails.trim() === ""}>
            Send invitations
          </button>
        )}
        {linking && (
          <button type="button" class={mailing ? "button-quiet" : "button-primary"} disabled={action.busy} onClick={() => void makeLink()}>
            Create invitation link
          </button>
        )}
      </div>
      {link !== null && <LinkBox link={link} />}
    </form>
  );
}

function InviteRow({ invite }: { invite: Invite }) {
  const action = useAction();
  const what = invite.is_multiuse ? "Reusable link" : (invite.email ?? "");
  const expires = invite.expiry_date === null ? "never expires" : `expires ${new Date(invite.expiry_date * 1000).toLocaleDateString()}`;
  return (
    <li>
      <div class="admin-row">
        <span class="admin-name">{what}</span>
        <span class="admin-meta">
          {roleName(invite.invited_as)}, {expires}
        </span>
        <button type="button" class="button-quiet" aria-label={`Revoke invitation: ${what}`} disabled={action.busy} onClick={() => void action.run(() => revokeInvite(invite))}>
          Revoke
        </button>
      </div>
      {invite.link_url !== undefined && <input class="invite-url" type="text" readOnly aria-label="Link" value={invite.link_url} />}
      <ActionStatus action={action} />
    </li>
  );
}

function OpenInvites() {
  const loading = useLoad(loadInvites);
  return (
    <section class="settings-form" aria-labelledby="invites-title">
      <h3 id="invites-title">Open invitations</h3>
      <ActionStatus action={loading} />
      {invites.value.length === 0 ? (
        <p class="settings-note">No open invitations.</p>
      ) : (
        <ul class="admin-list">
          {invites.value.map((i) => (
            <InviteRow key={`${i.is_multiuse ? "link" : "email"}-${i.id}`} invite={i} />
          ))}
        </ul>
      )}
    </section>
  );
}

function UserRow({ user }: { user: Member }) {
  const action = useAction();
  const self = user.user_id === me.value?.user_id;
  const roles = grantableRoles();
  // Administrators cannot change an owner; the server refuses it too.
  const locked = self || !roles.some((r) => r.value === user.role);
  return (
    <tr class={user.is_active ? undefined : "deactivated"}>
      <th scope="row">{user.full_name}</th>
      <td>{user.email}</td>
      <td>
        {locked ? (
          roleName(user.role)
        ) : (
          <NumberSelect label={`Role of ${user.full_name}`} value={user.role} choices={roles} disabled={action.busy || !user.is_active} onValue={(role) => void action.run(() => setRole(user.user_id, role))} />
        )}
      </td>
      <td>
        {!locked && (
          <button type="button" class="button-quiet" aria-label={`${user.is_active ? "Deactivate" : "Reactivate"} ${user.full_name}`} disabled={action.busy} onClick={() => void action.run(() => setActive(user.user_id, !user.is_active))}>
            {user.is_active ? "Deactivate" : "Reactivate"}
          </button>
        )}
        <ActionStatus action={action} />
      </td>
    </tr>
  );
}

function UserTable() {
  const loading = useLoad(loadMembers);
  return (
    <section class="settings-form" aria-labelledby="users-title">
      <h3 id="users-title">Users</h3>
      <ActionStatus action={loading} />
      <table class="admin-table" aria-labelledby="users-title">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Account</th>
          </tr>
        </thead>
        <tbody>
          {members.value.map((u) => (
            <UserRow key={u.user_id} user={u} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Inviting, for users who may invite but do not administer. */
export function InviteScreen() {
  return <InviteForm />;
}

/** The users screen: invitations and the users. */
export function UsersScreen() {
  return (
    <>
      <InviteForm />
      {isAdmin.value && <OpenInvites />}
      <UserTable />
    </>
  );
}
