/**
 * A user's menu, from the user list and from a message's sender name: send them a direct
 * message, view the messages they sent, and mute or unmute them (POST and DELETE
 * /users/me/muted_users/{id}; not offered for oneself). The change arrives as a `muted_users` event.
 */
import type { ComponentChildren } from "preact";
import { errorText } from "../state/errors.ts";
import { showNotice } from "../state/message-menu.ts";
import { isUserMuted, setUserMuted } from "../state/muting.ts";
import { narrowHash } from "../state/narrow.ts";
import { me, userName } from "../state/store.ts";
import { MenuButton, type MenuItem } from "./ActionMenu.tsx";
import "./UserMenu.css";

function userItems(userId: number): MenuItem[] {
  const items: MenuItem[] = [
    { label: "Send direct message", run: () => (location.hash = narrowHash({ kind: "dm", userIds: [userId] })) },
    { label: "View messages sent", run: () => (location.hash = narrowHash({ kind: "search", terms: [{ operator: "sender", operand: String(userId), negated: false }] })) },
  ];
  if (userId === me.value?.user_id) return items;
  const muted = isUserMuted(userId);
  const failed = (err: unknown) => showNotice(errorText(err, "Could not change the muting."));
  items.push({ label: muted ? "Unmute user" : "Mute user", run: () => void setUserMuted(userId, !muted).catch(failed) });
  return items;
}

/** The menu's button; `label` names the button (by default the user's name), its content shows. */
export function UserMenuButton({ userId, label, class: className, children }: { userId: number; label?: string; class?: string; children: ComponentChildren }) {
  const name = userName(userId);
  return (
    <MenuButton label={label ?? name} menuLabel={name} class={className} wrapperClass="user-menu" items={() => userItems(userId)}>
      {children}
    </MenuButton>
  );
}
