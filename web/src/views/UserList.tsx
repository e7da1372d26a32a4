/**
 * The right sidebar: the organization's people with presence dots (active, idle, offline),
 * the active ones first, each a link to a direct conversation with them.
 */
import { computed } from "@preact/signals";
import { narrowHash } from "../state/narrow.ts";
import { presenceOf, type PresenceStatus } from "../state/presence.ts";
import { me, users } from "../state/store.ts";
import { PRESENCE_TITLES } from "./Sidebar.tsx";

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
          <li key={user.user_id}>
            <a class="sidebar-item" href={narrowHash({ kind: "dm", userIds: [user.user_id] })} aria-label={`${user.full_name}${user.user_id === myId ? " (you)" : ""}, ${status}`}>
              <span class={`sidebar-icon presence-dot presence-${status}`} title={PRESENCE_TITLES[status]} aria-hidden="true" />
              <span class="sidebar-label">{user.full_name}</span>
            </a>
          </li>
        ))}
      </ul>
    </aside>
  );
}
