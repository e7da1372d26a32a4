/** PATCH /users/me/subscriptions (Zulip's update_subscriptions_backend): the caller's adds and removals in one call. */
import { JsonableError } from "../../errors.ts";
import type { AuthedCtx } from "../context.ts";
import { subscribe } from "./subscribe.ts";
import { unsubscribe } from "./subscriptions.ts";

/** The channels to join (as POST /users/me/subscriptions takes them) and to leave (names). */
type UpdateInput = { add: Array<{ name: string; color?: string; description?: string }>; delete: string[] };

/** Subscribes, then unsubscribes, the caller; the answer merges both (subscribed, already_subscribed, removed, not_removed). */
export async function updateSubscriptions(ctx: AuthedCtx, input: UpdateInput) {
  if (input.add.length === 0 && input.delete.length === 0) throw new JsonableError('Nothing to do. Specify at least one of "add" or "delete".');
  // Two transactions, one after the other: Zulip runs both in one, which withTransaction cannot nest.
  const added =
    input.add.length > 0
      ? await subscribe(ctx, { subscriptions: input.add, authorization_errors_fatal: true, invite_only: false, is_web_public: false, groupSettings: {} })
      : { subscribed: {}, already_subscribed: {} };
  const removed = input.delete.length > 0 ? await unsubscribe(ctx, { subscriptions: input.delete }) : { removed: [], not_removed: [] };
  return { subscribed: added.subscribed, already_subscribed: added.already_subscribed, removed: removed.removed, not_removed: removed.not_removed };
}
