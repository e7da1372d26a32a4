/**
 * `presence` events: a user came online (or changed presence_enabled). The action publishes one
 * event with both formats; `presenceEventForQueue` gives each queue the form its client declared
 * (simplified_presence_events, FL 419: the modern `presences` dict; otherwise the legacy fields).
 */
import type { LegacyPresenceEntry, ModernPresence } from "../../present/presence.ts";
import type { ClientCapabilities } from "../queue-options.ts";

/** The legacy form, as clients without simplified_presence_events get it. */
type LegacyPresenceEvent = { type: "presence"; user_id: number; email: string; server_timestamp: number; presence: { website: LegacyPresenceEntry } };

/** The modern form (FL 419), keyed by user id. */
type SimplifiedPresenceEvent = { type: "presence"; presences: Record<string, ModernPresence> };

/** The event as published: the legacy form plus the modern data, an internal field removed before delivery. */
type PublishedPresenceEvent = LegacyPresenceEvent & { modern_presence: ModernPresence };

/** Either delivered form, or the published one. */
export type PresenceEvent = PublishedPresenceEvent | LegacyPresenceEvent | SimplifiedPresenceEvent;

/** The event for a user's new presence, in both formats; `serverTimestamp` in (fractional) UNIX seconds. */
export function presenceEvent(
  user: { id: number; email: string },
  serverTimestamp: number,
  legacy: LegacyPresenceEntry,
  modern: ModernPresence,
): PublishedPresenceEvent {
  return { type: "presence", user_id: user.id, email: user.email, server_timestamp: serverTimestamp, presence: { website: legacy }, modern_presence: modern };
}

/** The form one queue receives (FL 419's simplified_presence_events picks the modern one). */
export function presenceEventForQueue(event: PresenceEvent, options: { capabilities: Pick<ClientCapabilities, "simplified_presence_events"> }): PresenceEvent {
  if (!("modern_presence" in event)) return event;
  const { modern_presence, ...legacy } = event;
  return options.capabilities.simplified_presence_events ? { type: "presence", presences: { [String(event.user_id)]: modern_presence } } : legacy;
}
