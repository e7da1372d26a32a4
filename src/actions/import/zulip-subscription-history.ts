/**
 * Each subscription's history, from the export's audit log: Zulip records each subscription's
 * creation, reactivation and deactivation (RealmAuditLog 301-303) with the newest message id of
 * the organization at that moment, and each user's deactivation and reactivation (103, 104),
 * which end and resume their receiving. Replayed per user and channel, they say who is
 * subscribed now and since when, and who received what while Zulip had soft-deactivated them
 * (zulip-received-runs.ts combines this with the UserMessage rows into subscription periods). An
 * event without a message id is placed by its time: its bound is the newest message sent up to
 * then, found as the messages stream past (`ChannelHistory.see`).
 */
import type { ZulipExport } from "../../formats/zulip/export-reader.ts";
import { auditLogRow, type Row } from "../../formats/zulip/rows.ts";
import type { ZulipImportState } from "./zulip-state.ts";

/** Upstream's AuditLogEventType values read here. */
const EVENT = { userDeactivated: 103, userReactivated: 104, subscriptionCreated: 301, subscriptionActivated: 302, subscriptionDeactivated: 303 } as const;

/** Where a period starts (after) or ends (at): a message id, or a time resolved to one as messages stream past. */
type Bound = { id: number } | { time: number; resolved: number };

/** A subscription period as replayed: received messages after `from`, up to `to` (null: still subscribed). */
export type ReplayedPeriod = { from: Bound; to: Bound | null };

function boundOf(event: Row<typeof auditLogRow>): Bound {
  return event.event_last_message_id === null ? { time: event.event_time, resolved: 0 } : { id: event.event_last_message_id };
}

function after(bound: Bound, id: number, sent: number): boolean {
  return "id" in bound ? id > bound.id : sent > bound.time;
}

function boundId(bound: Bound): number {
  return "id" in bound ? bound.id : bound.resolved;
}

/** The replayed periods of every (user, channel), and the times still to resolve. */
export class ChannelHistory {
  /** Per channel, per user, the periods in order. */
  readonly periods = new Map<number, Map<number, ReplayedPeriod[]>>();
  readonly #timeBounds: Array<{ time: number; resolved: number }> = [];
  /** Subscriptions the audit log says nothing of (counted for the operator). */
  unrecorded = 0;

  #list(streamId: number, userId: number): ReplayedPeriod[] {
    let byUser = this.periods.get(streamId);
    if (!byUser) this.periods.set(streamId, (byUser = new Map()));
    let list = byUser.get(userId);
    if (!list) byUser.set(userId, (list = []));
    return list;
  }

  #track(bound: Bound): Bound {
    if (!("id" in bound)) this.#timeBounds.push(bound);
    return bound;
  }

  open(streamId: number, userId: number, from: Bound): void {
    const list = this.#list(streamId, userId);
    const last = list[list.length - 1];
    if (last && last.to === null) return;
    list.push({ from: this.#track(from), to: null });
  }

  close(streamId: number, userId: number, to: Bound): void {
    const list = this.#list(streamId, userId);
    const last = list[list.length - 1];
    if (last && last.to === null) last.to = this.#track(to);
  }

  /** Whether the user received message `id` (sent at `sent`) of the channel. */
  covers(streamId: number, userId: number, id: number, sent: number): boolean {
    const list = this.periods.get(streamId)?.get(userId);
    return list !== undefined && list.some((p) => after(p.from, id, sent) && (p.to === null || !after(p.to, id, sent)));
  }

  /** Resolves bounds given as times, one message at a time in id order. */
  see(id: number, sent: number): void {
    for (const bound of this.#timeBounds) if (sent <= bound.time && id > bound.resolved) bound.resolved = id;
  }

  /** The users with a recorded history on the channel. */
  usersOf(streamId: number): Iterable<number> {
    return this.periods.get(streamId)?.keys() ?? [];
  }

  /** Where the user's current period on the channel began (the id it follows), or null when they are not subscribed now. */
  openSince(streamId: number, userId: number): number | null {
    const list = this.periods.get(streamId)?.get(userId);
    const last = list?.[list.length - 1];
    return last !== undefined && last.to === null ? boundId(last.from) : null;
  }

  /** Every (channel, user) with a recorded history. */
  *pairs(): Generator<[number, number]> {
    for (const [streamId, byUser] of this.periods) for (const userId of byUser.keys()) yield [streamId, userId];
  }
}

/**
 * Replays the audit log into periods for the channel subscriptions `subscriptions` lists (user,
 * channel, active). A subscription without any recorded event is taken as held from the start
 * (or never, when inactive): older servers did not record every one.
 */
export async function replaySubscriptions(
  source: ZulipExport,
  state: ZulipImportState,
  subscriptions: ReadonlyArray<{ userId: number; streamId: number; active: boolean }>,
): Promise<ChannelHistory> {
  const history = new ChannelHistory();
  const events: Array<Row<typeof auditLogRow>> = [];
  for await (const row of source.rows("realm", "zerver_realmauditlog", auditLogRow)) {
    if (Object.values(EVENT).includes(row.event_type as never) && row.modified_user !== null) events.push(row);
  }
  events.sort((a, b) => a.event_time - b.event_time || a.id - b.id);
  const subscribed = new Map<number, Set<number>>();
  const active = new Map<number, boolean>();
  const streamsOf = (userId: number) => subscribed.get(userId) ?? subscribed.set(userId, new Set()).get(userId) ?? new Set<number>();
  const recorded = new Set<string>();
  for (const e of events) {
    const userId = e.modified_user ?? 0;
    const streamId = e.modified_stream;
    if (!state.users.has(userId)) continue;
    if (e.event_type === EVENT.userDeactivated) {
      active.set(userId, false);
      for (const s of streamsOf(userId)) history.close(s, userId, boundOf(e));
    } else if (e.event_type === EVENT.userReactivated) {
      active.set(userId, true);
      for (const s of streamsOf(userId)) history.open(s, userId, boundOf(e));
    } else if (streamId !== null && state.streams.has(streamId)) {
      recorded.add(`${userId}:${streamId}`);
      if (e.event_type === EVENT.subscriptionDeactivated) {
        streamsOf(userId).delete(streamId);
        history.close(streamId, userId, boundOf(e));
      } else {
        streamsOf(userId).add(streamId);
        if (active.get(userId) !== false) history.open(streamId, userId, boundOf(e));
      }
    }
  }
  for (const s of subscriptions) {
    if (recorded.has(`${s.userId}:${s.streamId}`)) continue;
    history.unrecorded += 1;
    if (s.active) history.open(s.streamId, s.userId, { id: 0 });
  }
  return history;
}
