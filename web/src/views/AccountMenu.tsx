/**
 * The signed-in user in the top bar: their avatar, name and status mark, a button opening their
 * menu (upstream's personal menu): view one's own card, set, edit or clear the status
 * (StatusDialog.tsx), and invisible mode on or off (presence_enabled: others see the user offline).
 */
import { useRef } from "preact/hooks";
import { errorText } from "../state/errors.ts";
import { showNotice } from "../state/message-menu.ts";
import { me, users } from "../state/store.ts";
import { clearOwnStatus, isInvisible, setInvisible, statusOf } from "../state/user-status.ts";
import { MenuButton, type MenuItem } from "./ActionMenu.tsx";
import { Avatar } from "./Avatar.tsx";
import { openStatusDialog } from "./StatusDialog.tsx";
import { StatusMark } from "./StatusEmoji.tsx";
import { toggleUserCard } from "./UserCard.tsx";
import "./UserCard.css";

function failed(what: string): (err: unknown) => void {
  return (err) => showNotice(errorText(err, what));
}

/** The user's menu button. */
export function AccountMenu() {
  const anchor = useRef<HTMLSpanElement>(null);
  const user = me.value;
  if (user === null) return null;
  const items = (): MenuItem[] => {
    const status = statusOf(user.user_id);
    const invisible = isInvisible();
    const list: MenuItem[] = [
      { label: "View your profile", run: () => anchor.current !== null && toggleUserCard(user.user_id, anchor.current) },
      { label: status === undefined ? "Set status" : "Edit status", run: openStatusDialog },
    ];
    if (status !== undefined) list.push({ label: "Clear status", run: () => void clearOwnStatus().catch(failed("Could not clear the status.")) });
    list.push({ label: invisible ? "Turn off invisible mode" : "Go invisible", run: () => void setInvisible(!invisible).catch(failed("Could not change invisible mode.")) });
    return list;
  };
  return (
    <span class="account-menu" ref={anchor}>
      <MenuButton label="Your account" menuLabel="Your account" class="account-button" items={items}>
        <Avatar userId={user.user_id} name={user.full_name} url={users.value.get(user.user_id)?.avatar_url} size={24} />
        <span class="user-name">{user.full_name}</span>
        <StatusMark userId={user.user_id} />
      </MenuButton>
    </span>
  );
}
