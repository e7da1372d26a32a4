/**
 * A user's button, in the user list and on a message's sender name: it opens the user's card
 * (UserCard.tsx), which holds their actions (send them a direct message, view the messages they
 * sent, mute or unmute them).
 */
import type { ComponentChildren } from "preact";
import { useRef } from "preact/hooks";
import { userName } from "../state/store.ts";
import { cardOpenAt, toggleUserCard } from "./UserCard.tsx";
import "./UserMenu.css";

/** The button; `label` names it (by default the user's name), its content shows. */
export function UserMenuButton({ userId, label, class: className, children }: { userId: number; label?: string; class?: string; children: ComponentChildren }) {
  const button = useRef<HTMLButtonElement>(null);
  const name = label ?? userName(userId);
  return (
    <button
      ref={button}
      type="button"
      class={className ?? "toolbar-button user-card-button"}
      aria-label={name}
      title={name}
      aria-haspopup="dialog"
      aria-expanded={cardOpenAt(button.current)}
      onClick={(e) => toggleUserCard(userId, e.currentTarget)}
    >
      {children}
    </button>
  );
}
