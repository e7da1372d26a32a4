/**
 * Where a narrow is evaluated (`NarrowScope`) and what its operands name: channels by name or id,
 * users by API email or id (deactivated users included, as Zulip's narrows accept them), and
 * whether the viewer may read a channel's history. Conversations and channel lists come straight
 * from store/ (messages.ts, streams.ts).
 */
import type { Db } from "../store/schema/types.ts";
import { apiEmail } from "../model/emails.ts";
import type { StreamRow, UserRow } from "../store/schema/database.ts";
import { getStreamById, getStreamByName } from "../store/channels/streams.ts";
import { getUser, getUserByDeliveryEmail } from "../store/users/users.ts";
import { isGuest } from "../permissions/check.ts";
import { hasContentAccess } from "../permissions/stream-access.ts";
import { getSubscription } from "../store/channels/subscriptions.ts";

/** Where a narrow is evaluated: the store, the realm, the viewer and the realm's email host. */
export type NarrowScope = { db: Db; realmId: number; viewer: UserRow; host: string };

/** A channel named by an operand: a string is a name, an integer an id (archived channels included). */
export function streamByOperand(scope: NarrowScope, operand: string | number): Promise<StreamRow | undefined> {
  return typeof operand === "number" ? getStreamById(scope.db, scope.realmId, operand) : getStreamByName(scope.db, scope.realmId, operand);
}

/** A user named by API email (case-insensitive) or id; active or not. */
export async function userByOperand(scope: NarrowScope, operand: string | number): Promise<UserRow | undefined> {
  if (typeof operand === "number") return getUser(scope.db, scope.realmId, operand);
  const email = operand.trim().toLowerCase();
  const dummy = /^user(\d+)@/.exec(email);
  const candidate = dummy ? await getUser(scope.db, scope.realmId, Number(dummy[1])) : await getUserByDeliveryEmail(scope.db, scope.realmId, email);
  return candidate && apiEmail(candidate, scope.host).toLowerCase() === email ? candidate : undefined;
}

/**
 * Whether the viewer may read the channel's history beyond what they received (Zulip's
 * can_access_stream_history): web-public channels, public channels for non-guests, and
 * channels with shared history that the viewer can read.
 */
export async function canAccessStreamHistory(scope: NarrowScope, stream: StreamRow): Promise<boolean> {
  if (stream.is_web_public === 1) return true;
  if (stream.history_public_to_subscribers !== 1) return false;
  if (stream.invite_only === 0 && !isGuest(scope.viewer)) return true;
  const sub = await getSubscription(scope.db, scope.realmId, scope.viewer.id, stream.id);
  return hasContentAccess(scope.db, scope.viewer, stream, sub?.active === 1);
}
