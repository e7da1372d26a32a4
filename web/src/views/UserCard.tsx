/**
 * A user's card, as upstream's user card popover: avatar, name, presence, status, role, email,
 * local time (from the user's time zone), date joined and the organization's custom profile
 * fields, with the user's actions (send a direct message, view the messages they sent, mute or
 * unmute them; for oneself, set the status). One card at a time, placed next to what opened it:
 * a user's button (UserMenu.tsx: user list, sender names), a sender's avatar, or a mention in a
 * message (a press on it, or Enter or Space once focused: `useMentionButtons`). Esc or a press
 * outside closes it.
 */
import { signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { User } from "../api/types.ts";
import { errorText } from "../state/errors.ts";
import { showNotice } from "../state/message-menu.ts";
import { isUserMuted, setUserMuted } from "../state/muting.ts";
import { narrowHash } from "../state/narrow.ts";
import { presenceOf } from "../state/presence.ts";
import { joinedDate, localTime, profileEntries, roleName, type ProfileEntry } from "../state/profile.ts";
import { me, settings, userName, users } from "../state/store.ts";
import { isInvisible, statusOf } from "../state/user-status.ts";
import { Avatar } from "./Avatar.tsx";
import { usePopoverPlacement } from "./popover.ts";
import { PRESENCE_TITLES } from "./Sidebar.tsx";
import { openStatusDialog } from "./StatusDialog.tsx";
import { StatusGlyph } from "./StatusEmoji.tsx";
import "./UserCard.css";

/** The open card: whose, the element it is placed at, and a count of openings (a new card each time). */
const opened = signal<{ userId: number; anchor: HTMLElement; n: number } | null>(null);
let openings = 0;

/** Opens `userId`'s card at `anchor`; from the same anchor again, closes it. */
export function toggleUserCard(userId: number, anchor: HTMLElement): void {
  const now = opened.value;
  openings += 1;
  opened.value = now !== null && now.anchor === anchor ? null : { userId, anchor, n: openings };
}

/** Whether the card is open at `anchor` (for its button's aria-expanded). */
export function cardOpenAt(anchor: Element | null): boolean {
  return anchor !== null && opened.value?.anchor === anchor;
}

/** A user mention in rendered message HTML: the server's `<span class="user-mention" data-user-id="12">`. */
const MENTION = ".user-mention[data-user-id]";

function mentionedUser(target: EventTarget | null): { userId: number; el: HTMLElement } | null {
  const el = target instanceof Element ? target.closest<HTMLElement>(MENTION) : null;
  const userId = Number(el?.dataset.userId);
  return el !== null && Number.isInteger(userId) && users.value.has(userId) ? { userId, el } : null;
}

/** Makes a message's user mentions buttons that open the user's card (the presses are handled by `UserCard`). */
export function useMentionButtons(content: { current: HTMLElement | null }, html: string): void {
  useLayoutEffect(() => {
    for (const el of content.current?.querySelectorAll<HTMLElement>(MENTION) ?? []) {
      if (mentionedUser(el) === null) continue;
      el.setAttribute("role", "button");
      el.setAttribute("aria-haspopup", "dialog");
      el.tabIndex = 0;
    }
  }, [html]);
}

function EntryValue({ entry }: { entry: ProfileEntry }) {
  switch (entry.kind) {
    case "link":
      return (
        <a href={entry.url} target="_blank" rel="noopener noreferrer">
          {entry.text}
        </a>
      );
    case "users":
      return <>{entry.userIds.map(userName).join(", ")}</>;
    case "text":
      return <span class={entry.long ? "user-card-long" : undefined}>{entry.text}</span>;
  }
}

/** The user's facts: role, email, local time, joined, then their custom profile fields. */
function Facts({ user }: { user: User }) {
  const [, setTick] = useState(0);
  // The local time moves on while the card is open.
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), 30_000);
    return () => clearInterval(timer);
  }, []);
  const time = localTime(user.timezone, settings.value.twenty_four_hour_time);
  const joined = joinedDate(user);
  const facts: Array<{ key: string; name: string; value: ComponentChildren }> = [
    { key: "role", name: "Role", value: roleName(user) },
    { key: "email", name: "Email", value: user.email },
  ];
  if (time !== null) facts.push({ key: "time", name: "Local time", value: time });
  if (joined !== null) facts.push({ key: "joined", name: "Joined", value: joined });
  for (const entry of profileEntries(user)) facts.push({ key: `field-${entry.id}`, name: entry.name, value: <EntryValue entry={entry} /> });
  return (
    <dl class="user-card-facts">
      {facts.map((f) => (
        <div key={f.key} class="user-card-fact">
          <dt>{f.name}</dt>
          <dd>{f.value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Card({ user, anchor }: { user: User; anchor: HTMLElement }) {
  const root = useRef<HTMLDivElement>(null);
  usePopoverPlacement(root, () => anchor, "start");
  const close = (refocus: boolean) => {
    opened.value = null;
    if (refocus) anchor.focus();
  };
  // Before the browser paints: a key pressed as soon as the card shows (Esc) reaches it.
  useLayoutEffect(() => root.current?.focus(), []);
  useEffect(() => {
    const outside = (e: MouseEvent) => {
      if (e.target instanceof Node && !root.current?.contains(e.target) && !anchor.contains(e.target)) close(false);
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, []);
  const onKeyDown = (e: KeyboardEvent) => {
    // The app's shortcuts stay out of the card.
    e.stopPropagation();
    if (e.key !== "Escape") return;
    e.preventDefault();
    close(true);
  };
  const isMe = user.user_id === me.value?.user_id;
  const presence = presenceOf(user.user_id);
  const status = statusOf(user.user_id);
  const muted = isUserMuted(user.user_id);
  const go = (hash: string) => {
    close(false);
    location.hash = hash;
  };
  const toggleMute = () => void setUserMuted(user.user_id, !muted).catch((err: unknown) => showNotice(errorText(err, "Could not change the muting.")));
  return (
    <div class="user-card" role="dialog" aria-label={user.full_name} tabIndex={-1} ref={root} onKeyDown={onKeyDown}>
      <div class="user-card-head">
        <Avatar userId={user.user_id} name={user.full_name} url={user.avatar_url} size={56} />
        <div class="user-card-who">
          <h2 class="user-card-name">
            {user.full_name}
            {isMe && <span class="user-card-you"> (you)</span>}
          </h2>
          <p class="user-card-presence">
            <span class={`presence-dot presence-${presence}`} aria-hidden="true" />
            {isMe && isInvisible() ? "Invisible" : PRESENCE_TITLES[presence]}
          </p>
        </div>
      </div>
      {status !== undefined && (
        <p class="user-card-status" aria-label="Status">
          {status.emoji !== null && <StatusGlyph emoji={status.emoji} />}
          {status.text !== "" && <span>{status.text}</span>}
        </p>
      )}
      <Facts user={user} />
      <div class="user-card-actions">
        {isMe && (
          <button
            type="button"
            onClick={() => {
              close(false);
              openStatusDialog();
            }}
          >
            {status === undefined ? "Set status" : "Edit status"}
          </button>
        )}
        <button type="button" onClick={() => go(narrowHash({ kind: "dm", userIds: [user.user_id] }))}>
          Send direct message
        </button>
        <button type="button" onClick={() => go(narrowHash({ kind: "search", terms: [{ operator: "sender", operand: String(user.user_id), negated: false }] }))}>
          View messages sent
        </button>
        {!isMe && (
          <button type="button" onClick={toggleMute}>
            {muted ? "Unmute user" : "Mute user"}
          </button>
        )}
      </div>
    </div>
  );
}

/** The open card, if any, and the presses on mentions that open one (rendered once, by the app). */
export function UserCard() {
  useEffect(() => {
    const onClick = (e: MouseEvent) => {
      const hit = mentionedUser(e.target);
      if (hit !== null) toggleUserCard(hit.userId, hit.el);
    };
    const onKey = (e: KeyboardEvent) => {
      const hit = e.key === "Enter" || e.key === " " ? mentionedUser(e.target) : null;
      if (hit === null || e.target !== hit.el) return;
      e.preventDefault();
      e.stopPropagation();
      toggleUserCard(hit.userId, hit.el);
    };
    document.addEventListener("click", onClick);
    document.addEventListener("keydown", onKey, { capture: true });
    return () => {
      document.removeEventListener("click", onClick);
      document.removeEventListener("keydown", onKey, { capture: true });
    };
  }, []);
  const open = opened.value;
  const user = open === null ? undefined : users.value.get(open.userId);
  // A card whose anchor left the page (the feed changed) closes.
  useEffect(() => {
    if (open !== null && !open.anchor.isConnected) opened.value = null;
  });
  if (open === null || user === undefined || !open.anchor.isConnected) return null;
  return <Card key={open.n} user={user} anchor={open.anchor} />;
}
