/**
 * Digest emails (Zulip's zerver/lib/digest.py), for organizations with digest_emails_enabled,
 * on their digest_weekday (Monday 0, in UTC): each active person who has not been active for
 * DIGEST_CUTOFF_DAYS, has enable_digest_emails on and was not considered in the last day gets
 * the liveliest conversations of their unmuted channels since then (the two with the most
 * people, then the longest, four at most, each with its first two messages) and the channels
 * created meanwhile; or, where message content may not be emailed, how many new messages and
 * channels there are. Nobody is sent a digest with nothing in it. Upstream leaves out channels
 * whose subscription changed since the cutoff, so that everyone sees the same history of a
 * channel: here, channels whose current subscription began after it.
 */
import { realmSettings } from "../../permissions/realm-settings.ts";
import { channelNarrow, encodeHashComponent } from "../../markdown/urls.ts";
import { ROLE } from "../../model/roles.ts";
import { userSetting } from "../../model/user-settings.ts";
import {
  activeRealms,
  channelMessagesAfter,
  channelsCreatedAfter,
  digestCandidates,
  digestChannels,
  lastMessageIdAtOrBefore,
  receivedFromPeopleAfter,
  recordDigestsConsidered,
} from "../../store/lookups/digest.ts";
import { getStreamsByIds } from "../../store/channels/streams.ts";
import { getMessages } from "../../store/messages/messages.ts";
import type { RealmRow, StreamRow, UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { realmUsersById } from "../../store/users/users.ts";
import { actionCtx, withTransaction, type ServerDeps } from "../context.ts";
import { doQueueEmail, emailQueued, type Email } from "../email/outbox.ts";
import { digestEmail, type DigestInput, type HotConversation } from "../email/templates/digest.ts";
import { cachedEmailMessage } from "./conversation-email.ts";

/** Days without activity before a digest is sent (Zulip's DIGEST_CUTOFF), and the span it covers. */
export const DIGEST_CUTOFF_DAYS = 5;
const DAY_SECONDS = 24 * 60 * 60;
/** Conversations in a digest at most (MAX_HOT_TOPICS_TO_BE_INCLUDED_IN_DIGEST), and messages shown of each. */
const MAX_HOT_TOPICS = 4;
const SAMPLE_MESSAGES = 2;
/** Users whose digests one transaction composes (upstream's batch of 30). */
const USERS_PER_TRANSACTION = 30;

/** Zulip's weekday of a time: Monday 0 ... Sunday 6, in UTC. */
export function digestWeekday(nowMs: number): number {
  return (new Date(nowMs).getUTCDay() + 6) % 7;
}

/** One topic's traffic since the cutoff (Zulip's DigestTopic). */
type DigestTopic = { streamId: number; topic: string; people: Set<string>; peopleMessages: number; sampleIds: number[] };

/** What the digests of one realm's pass share: the cutoff, the new channels, each channel's topics. */
class RealmTraffic {
  private readonly topics = new Map<number, Promise<DigestTopic[]>>();

  constructor(
    readonly realm: RealmRow,
    readonly cutoff: number,
    readonly cutoffId: number,
    readonly newChannels: readonly StreamRow[],
    readonly channels: ReadonlyMap<number, StreamRow>,
    private readonly users: ReadonlyMap<number, UserRow>,
  ) {}

  /** The channel's topics since the cutoff, read once per pass. */
  topicsOf(db: Db, streamId: number): Promise<DigestTopic[]> {
    let known = this.topics.get(streamId);
    if (!known) {
      known = channelMessagesAfter(db, this.realm.id, streamId, this.cutoffId, this.cutoff).then((messages) => {
        const byTopic = new Map<string, DigestTopic>();
        for (const m of messages) {
          let t = byTopic.get(m.topic);
          if (!t) byTopic.set(m.topic, (t = { streamId, topic: m.topic, people: new Set(), peopleMessages: 0, sampleIds: [] }));
          if (t.sampleIds.length < SAMPLE_MESSAGES) t.sampleIds.push(m.id);
          const sender = this.users.get(m.sender_id);
          if (sender && sender.is_bot === 0) {
            t.people.add(sender.full_name);
            t.peopleMessages++;
          }
        }
        return [...byTopic.values()];
      });
      this.topics.set(streamId, known);
    }
    return known;
  }

  senderName(id: number): string {
    return this.users.get(id)?.full_name ?? "Unknown user";
  }
}

/** Zulip's get_hot_topics: the two with the most people, then the longest, four at most. */
function hotTopics(topics: readonly DigestTopic[]): DigestTopic[] {
  const hot = [...topics].sort((a, b) => b.people.size - a.people.size).slice(0, 2);
  for (const t of [...topics].sort((a, b) => b.peopleMessages - a.peopleMessages)) {
    if (hot.length >= MAX_HOT_TOPICS) break;
    if (!hot.includes(t)) hot.push(t);
  }
  return hot;
}

/** A hot topic as the email shows it. */
async function hotConversation(db: Db, traffic: RealmTraffic, siteUrl: string, t: DigestTopic): Promise<HotConversation> {
  const channel = traffic.channels.get(t.streamId);
  const channelPath = channelNarrow(t.streamId, channel?.name ?? "");
  const topicName = t.topic === "" ? realmSettings(traffic.realm).realm_empty_topic_display_name : t.topic;
  const samples = await getMessages(db, traffic.realm.id, t.sampleIds);
  return {
    channel: { name: channel?.name ?? "", url: `${siteUrl}/${channelPath}` },
    topic: { name: topicName, url: `${siteUrl}/${channelPath}/topic/${encodeHashComponent(t.topic)}` },
    messages: samples.map((m) => ({ sender: traffic.senderName(m.sender_id), content: cachedEmailMessage(m, siteUrl) })),
    more: t.peopleMessages - samples.length,
    participants: [...t.people].sort(),
  };
}

/** The user's digest, or null when it would say nothing (Zulip's enough_traffic). */
async function digestOf(db: Db, traffic: RealmTraffic, siteUrl: string, user: UserRow, channelIds: readonly number[]): Promise<Email | null> {
  const { realm } = traffic;
  // Guests see only web-public channels they are not in (Zulip's can_access_public_streams).
  const newChannels = traffic.newChannels.filter((c) => (user.role === ROLE.guest ? c.is_web_public === 1 : c.invite_only === 0));
  const hiddenBy = !realmSettings(realm).message_content_allowed_in_email_notifications ? "realm" : userSetting(user, "message_content_in_email_notifications") !== true ? "user" : null;
  let content: DigestInput["content"];
  if (hiddenBy !== null) {
    const newMessages = await receivedFromPeopleAfter(db, realm.id, user.id, traffic.cutoffId);
    if (newChannels.length === 0 && newMessages === 0) return null;
    content = { hiddenBy, newMessages, newChannels: newChannels.length };
  } else {
    const topics = (await Promise.all(channelIds.map((id) => traffic.topicsOf(db, id)))).flat();
    const hot = hotTopics(topics);
    if (newChannels.length === 0 && hot.length === 0) return null;
    const conversations = [];
    for (const t of hot) conversations.push(await hotConversation(db, traffic, siteUrl, t));
    content = { hot: conversations, newChannels: newChannels.map((c) => ({ name: c.name, url: `${siteUrl}/${channelNarrow(c.id, c.name)}` })) };
  }
  const rendered = digestEmail({ realmName: realm.name, realmUrl: siteUrl, content });
  return { to: user.delivery_email, subject: rendered.subject, body: rendered.body, html: rendered.html };
}

/** Composes and queues the realm's digests at `now` (UNIX seconds); returns how many were queued. */
async function realmDigests(deps: ServerDeps, realm: RealmRow, now: number): Promise<number> {
  const reader = deps.store.reader;
  const cutoff = now - DIGEST_CUTOFF_DAYS * DAY_SECONDS;
  const candidates = (await digestCandidates(reader, realm.id, cutoff, now - DAY_SECONDS)).filter((u) => userSetting(u, "enable_digest_emails") === true);
  if (candidates.length === 0) return 0;
  const cutoffId = await lastMessageIdAtOrBefore(reader, realm.id, cutoff);
  const [newChannels, users, channels] = await Promise.all([channelsCreatedAfter(reader, realm.id, cutoff), realmUsersById(reader, realm.id), digestChannels(reader, realm.id, candidates.map((u) => u.id), cutoffId + 1)]);
  const streams = await getStreamsByIds(reader, realm.id, [...new Set([...channels.values()].flat())]);
  const traffic = new RealmTraffic(realm, cutoff, cutoffId, newChannels, new Map(streams.map((s) => [s.id, s])), users);
  const ctx = actionCtx(deps, { realm, actor: null, client: "Internal" });
  let queued = 0;
  for (let i = 0; i < candidates.length; i += USERS_PER_TRANSACTION) {
    const batch = candidates.slice(i, i + USERS_PER_TRANSACTION);
    queued += await withTransaction(ctx, async (tx) => {
      let n = 0;
      for (const user of batch) {
        const email = await digestOf(tx, traffic, deps.config.externalUrl, user, channels.get(user.id) ?? []);
        if (email && (await doQueueEmail(tx, ctx, email))) n++;
      }
      await recordDigestsConsidered(tx, realm.id, batch.map((u) => u.id), now);
      return n;
    });
  }
  return queued;
}

/**
 * One digest pass at the clock's time: the digests of every organization whose digest weekday
 * it is. Returns how many were queued.
 */
export async function runDigestPass(deps: ServerDeps): Promise<number> {
  if (deps.config.smtp === null) return 0;
  const nowMs = deps.clock.nowMs();
  const weekday = digestWeekday(nowMs);
  let queued = 0;
  for (const realm of await activeRealms(deps.store.reader)) {
    const settings = realmSettings(realm);
    if (!settings.digest_emails_enabled || settings.digest_weekday !== weekday) continue;
    queued += await realmDigests(deps, realm, Math.floor(nowMs / 1000));
  }
  if (queued > 0) emailQueued.fire();
  return queued;
}
