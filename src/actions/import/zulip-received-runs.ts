/**
 * Subscription periods as Zulip's data says them. Parley knows who received a channel message
 * from id ranges (subscription_periods); Zulip from a UserMessage row per recipient. The rows are
 * the truth of the past: they include the recent history Zulip gives a new user of the default
 * channels, and they leave out messages moved into a channel from one the user was not in. So,
 * per user and channel, the runs of consecutive messages (in the channel's order) with a row that
 * is not "historical" become periods; the audit log (zulip-subscription-history.ts) says whether
 * the last one is still open, and stands in for the rows Zulip never wrote for users it had
 * soft-deactivated (long_term_idle).
 */
import type { ChannelHistory } from "./zulip-subscription-history.ts";

/** One user's runs on one channel, as the messages stream past. */
type RunState = { closed: Array<[number, number]>; current: [number, number] | null; lastMissed: number };

/** A subscription period row: message ids [first, last], last null while subscribed. */
export type PeriodRow = { streamId: number; userId: number; first: number; last: number | null };

/** The runs of received messages of every (channel, user), built one message at a time in id order. */
export class ReceivedRuns {
  readonly #byStream = new Map<number, Map<number, RunState>>();

  #usersOf(streamId: number, history: ChannelHistory): Map<number, RunState> {
    let users = this.#byStream.get(streamId);
    if (!users) {
      users = new Map();
      for (const userId of history.usersOf(streamId)) users.set(userId, { closed: [], current: null, lastMissed: 0 });
      this.#byStream.set(streamId, users);
    }
    return users;
  }

  /** Records who received message `id` of the channel: `receivers` (whatever else the channel's users did not). */
  observe(streamId: number, id: number, receivers: Iterable<number>, history: ChannelHistory): void {
    const users = this.#usersOf(streamId, history);
    const got = new Set(receivers);
    for (const userId of got) if (!users.has(userId)) users.set(userId, { closed: [], current: null, lastMissed: 0 });
    for (const [userId, state] of users) {
      if (got.has(userId)) {
        if (state.current) state.current[1] = id;
        else state.current = [id, id];
      } else {
        if (state.current) state.closed.push(state.current);
        state.current = null;
        state.lastMissed = id;
      }
    }
  }

  /** The periods: closed runs, and the current one left open for whom the audit log says is subscribed now. */
  *periods(history: ChannelHistory): Generator<PeriodRow> {
    for (const [streamId] of history.pairs()) this.#usersOf(streamId, history);
    for (const [streamId, users] of this.#byStream) {
      for (const [userId, state] of users) {
        for (const [first, last] of state.closed) yield { streamId, userId, first, last };
        const openSince = history.openSince(streamId, userId);
        if (state.current) yield { streamId, userId, first: state.current[0], last: openSince === null ? state.current[1] : null };
        else if (openSince !== null) yield { streamId, userId, first: Math.max(openSince, state.lastMissed) + 1, last: null };
      }
    }
  }
}
