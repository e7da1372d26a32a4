/**
 * What an export holds, by its kind (upstream's export types, zerver/lib/export.py):
 * - "public": the public channels (web-public ones included) and their messages, without
 *   anyone's private data: no direct messages, no private channels, and of each user's message
 *   flags only who received what (every exported UserMessage row says "read");
 * - "full_with_consent": that, and the private data of the users whose
 *   `allow_private_data_export` setting is on: the private channels' and direct messages they
 *   received, and their flags, topic settings, alert words, muted users, snippets and scheduled
 *   messages; others' rows on those messages say only "read";
 * - "full": everything.
 * Also how Parley's conversations map to Zulip's recipients: a channel keeps its recipient, a
 * group conversation (three or more people) is a Zulip huddle under its own ids, and a
 * conversation of two (or one) is addressed to the other person's personal recipient, which
 * Zulip keeps for every user and Parley does not (ids made past the store's).
 */
import { storedOverrides } from "../../model/user-settings.ts";
import type { ExportMessage } from "../../store/export/message-chunks.ts";

/** The three export types. */
export type ExportKind = "public" | "full_with_consent" | "full";

type Period = { first: number; last: number | null };

/** The decisions of one export, from the organization's people, channels and conversations (never its messages). */
export class ExportScope {
  /** Channels exported (all but the private ones in a public export). */
  readonly streamIds = new Set<number>();
  readonly #publicStreams = new Set<number>();
  /** Users whose private data goes in. */
  readonly consenting = new Set<number>();
  /** Per channel, per user, the subscription periods. */
  readonly #periods = new Map<number, Map<number, Period[]>>();
  /** Members of each direct conversation, by its Parley recipient id. */
  readonly directMembers = new Map<number, readonly number[]>();
  /** Each user's personal recipient id (Zulip's). */
  readonly personalRecipient = new Map<number, number>();

  constructor(
    readonly kind: ExportKind,
    users: ReadonlyArray<{ id: number; settings: string }>,
    streams: ReadonlyArray<{ id: number; invite_only: number }>,
    periods: ReadonlyArray<{ user_id: number; stream_id: number; first_message_id: number; last_message_id: number | null }>,
    direct: ReadonlyArray<{ recipientId: number; members: readonly number[] }>,
    maxRecipientId: number,
  ) {
    for (const s of streams) {
      if (s.invite_only === 0) this.#publicStreams.add(s.id);
      if (kind !== "public" || s.invite_only === 0) this.streamIds.add(s.id);
    }
    for (const u of users) {
      if (kind === "full" || (kind === "full_with_consent" && storedOverrides(u).allow_private_data_export === true)) this.consenting.add(u.id);
    }
    for (const p of periods) {
      let byUser = this.#periods.get(p.stream_id);
      if (!byUser) this.#periods.set(p.stream_id, (byUser = new Map()));
      const list = byUser.get(p.user_id);
      const period = { first: p.first_message_id, last: p.last_message_id };
      if (list) list.push(period);
      else byUser.set(p.user_id, [period]);
    }
    for (const d of direct) this.directMembers.set(d.recipientId, d.members);
    let next = maxRecipientId;
    for (const u of [...users].sort((a, b) => a.id - b.id)) this.personalRecipient.set(u.id, ++next);
  }

  /** Whether the user's private data (topics, alert words, ...) goes in. */
  isPrivateOf(userId: number): boolean {
    return this.consenting.has(userId);
  }

  /** The subscription periods of the channel, per user. */
  periodsOf(streamId: number): ReadonlyMap<number, readonly Period[]> {
    return this.#periods.get(streamId) ?? new Map();
  }

  /** Who received a message: its sender, and a channel's subscribers then or a conversation's members. */
  receivers(m: ExportMessage): number[] {
    const out = new Set<number>([m.sender_id]);
    if (m.stream_id === null) {
      for (const u of this.directMembers.get(m.recipient_id) ?? []) out.add(u);
    } else {
      for (const [userId, list] of this.periodsOf(m.stream_id)) {
        if (list.some((p) => p.first <= m.id && (p.last === null || m.id <= p.last))) out.add(userId);
      }
    }
    return [...out];
  }

  /** Whether a message goes in: a public channel's always (in any kind), a private one's or a direct message when a consenting user received it. */
  includes(m: ExportMessage, receivers: readonly number[]): boolean {
    if (this.kind === "full") return true;
    if (m.stream_id !== null && this.#publicStreams.has(m.stream_id)) return true;
    if (this.kind === "public") return false;
    if (m.stream_id !== null && !this.streamIds.has(m.stream_id)) return false;
    return receivers.some((u) => this.consenting.has(u));
  }

  /** Zulip's recipient id of a direct message: the huddle's for three or more people, else the other person's (or the sender's own). */
  directRecipient(recipientId: number, senderId: number): { recipient: number; huddle: boolean } {
    const members = this.directMembers.get(recipientId) ?? [senderId];
    if (members.length > 2) return { recipient: recipientId, huddle: true };
    const other = members.find((u) => u !== senderId) ?? senderId;
    return { recipient: this.personalRecipient.get(other) ?? recipientId, huddle: false };
  }
}
