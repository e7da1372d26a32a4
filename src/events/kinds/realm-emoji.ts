/** `realm_emoji` events: the realm's whole custom emoji set, sent to every user on any change. */
import type { ApiRealmEmoji } from "../../present/attachments.ts";

/** The realm's custom emoji by id, deactivated ones included. */
export type RealmEmojiEvent = { type: "realm_emoji"; op: "update"; realm_emoji: Record<string, ApiRealmEmoji> };

/** The realm's custom emoji after an upload or deactivation. */
export function realmEmojiEvent(emoji: Record<string, ApiRealmEmoji>): RealmEmojiEvent {
  return { type: "realm_emoji", op: "update", realm_emoji: emoji };
}
