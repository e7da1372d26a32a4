/**
 * The stand-in push relay (test/helpers/push-relay.ts) in a process of its own, for the push
 * scenario: the relay answering hundreds of calls a second must not run on the event loop that
 * times the sends. Started with fork(); tells its parent its env, answers "stats" with what it
 * received, and exits when the parent disconnects.
 */
import { startStandInRelay } from "../test/helpers/push-relay.ts";

/** What the relay has received so far. */
export type RelayStats = { tokens: number; notifications: number };

const relay = await startStandInRelay();
// Notifications are counted and dropped at each look: a long run would otherwise hold every payload.
let notifications = 0;
process.on("message", (msg) => {
  if (msg !== "stats") return;
  notifications += relay.legacyOutbox.length;
  relay.legacyOutbox.length = 0;
  process.send?.({ stats: { tokens: relay.tokens.size, notifications } satisfies RelayStats });
});
process.on("disconnect", () => {
  void relay.close().finally(() => process.exit(0));
});
process.send?.({ env: relay.env() });
