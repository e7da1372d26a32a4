/**
 * The right sidebar: the organization's people with presence dots (active, idle, offline),
 * the active ones first, each a link to a direct conversation with them and a menu of its own
 * (UserMenu.tsx: the user's card), their status emoji beside their name, muted users marked.
 */
import { computed } from "@preact/signals";
import { narrowHash } from "../state/narrow.ts";
import { presenceOf, type PresenceStatus } from "../state/presence.ts";
import { isUserMuted } from "../state/muting.ts";
import { me, users } from "../state/store.ts";
import { PRESENCE_TITLES } from "./Sidebar.tsx";
import { StatusMark } from "./StatusEmoji.tsx";
import { UserMenuButton } from "./UserMenu.tsx";

const ORDER: Record<PresenceStatus, number> = { active: 0, idle: 1, offline: 2 };

/** People shown: active accounts that are not bots, by presence then name. */
const people = computed(() =>
  [...users.value.values()]
    .filter((u) => u.is_active !== false && !u.is_bot)
    .map((u) => ({ user: u, status: presenceOf(u.user_id) }))
    .sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.user.full_name.localeCompare(b.user.full_name)),
);

/** The user list (a complementary landmark named "Users"). */
export function UserList() {
  const myId = me.value?.user_id;
  return (
    <aside class="user-list" aria-labelledby="users-heading">
      <h2 class="sidebar-heading" id="users-heading">
        Users
      </h2>
      <ul>
        {people.value.map(({ user, status }) => (
          <li key={user.user_id} class="user-list-row">
            <a class="sidebar-item" href={narrowHash({ kind: "dm", userIds: [user.user_id] })} aria-label={`${user.full_name}${user.user_id === myId ? " (you)" : ""}, ${status}${isUserMuted(user.user_id) ? ", muted" : ""}`}>
              <span class={`sidebar-icon presence-dot presence-${status}`} title={PRESENCE_TITLES[status]} aria-hidden="true" />
              <span class="sidebar-label">{user.full_name}</span>
              <StatusMark userId={user.user_id} />
              {isUserMuted(user.user_id) && (
                <span class="muted-mark" aria-hidden="true">
                  muted
                </span>
              )}
            </a>
            <UserMenuButton userId={user.user_id} label={`Actions for ${user.full_name}`}>
              <span aria-hidden="true">⋮</span>
            </UserMenuButton>
          </li>
        ))}
      </ul>
    </aside>
  );
}
