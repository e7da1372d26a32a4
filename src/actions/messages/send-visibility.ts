/**
 * Automatic topic visibility on send (FL 214/218): the sender's automatically_follow_topics_policy
 * and automatically_unmute_topics_in_muted_streams_policy, and following topics where a user is
 * mentioned (automatically_follow_topics_where_mentioned). Values as Zulip's: 1 on participation,
 * 2 on send, 3 on initiation, 4 never. The whole rule is here: whose policy a send may set
 * (`topicPolicyUsers`, which the store's batched insert is told so that it leaves a policy an
 * earlier send of the batch may change unknown: store/messages/message-inserts.ts) and what it sets
 * (`doApplyTopicVisibility`, the one call of doSendInsertedMessage).
 */
import { nowSeconds } from "../../clock.ts";
import { userTopicEvent } from "../../events/kinds/user-topics.ts";
import { userSetting } from "../../model/user-settings.ts";
import type { Db } from "../../store/schema/types.ts";
import { topicHasEarlierMessages, type InsertedMessage } from "../../store/messages/messages.ts";
import type { MessageRow, StreamRow, UserRow } from "../../store/schema/database.ts";
import { getSubscription } from "../../store/channels/subscriptions.ts";
import { getUserTopic, setUserTopic, VISIBILITY_POLICY } from "../../store/messages/user-topics.ts";
import { usersByIds } from "../../store/users/users.ts";
import type { DoEnv } from "../context.ts";

const ON_PARTICIPATION = 1;
const ON_SEND = 2;
const ON_INITIATION = 3;

/** What setting a topic policy reads: the realm, the time, and the transaction's emit. */
type VisibilityEnv = Pick<DoEnv, "realm" | "engine" | "clock" | "emit">;

/** What deciding a send's policy may need to ask the database, asked only when needed. */
type SendFacts = { initiated: () => Promise<boolean>; streamMuted: () => Promise<boolean> };

/** The policy sending should set (null: none more visible than the current one). */
async function policyForSend(follow: unknown, unmute: unknown, current: number, facts: SendFacts): Promise<number | null> {
  if (current === VISIBILITY_POLICY.followed) return null;
  const onSend = async (p: unknown) => p === ON_PARTICIPATION || p === ON_SEND || (p === ON_INITIATION && (await facts.initiated()));
  if (await onSend(follow)) return VISIBILITY_POLICY.followed;
  if (current === VISIBILITY_POLICY.unmuted) return null;
  return (await onSend(unmute)) && (await facts.streamMuted()) ? VISIBILITY_POLICY.unmuted : null;
}

/** A thunk that runs `load` at most once. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= load());
}

async function setPolicy(tx: Db, env: VisibilityEnv, userId: number, message: MessageRow, policy: number): Promise<void> {
  const now = nowSeconds(env.clock);
  const streamId = message.stream_id ?? 0;
  await setUserTopic(tx, env.realm.id, { userId, streamId, topic: message.topic, policy, now });
  env.emit(userTopicEvent(streamId, message.topic, policy, now), [userId]);
}

/**
 * A sent channel message; `topicHadMessages` and the sender's `senderTopicPolicy` (null: none set)
 * when the insert already told (else each is asked when needed).
 */
type SentToChannel = { sender: UserRow; stream: StreamRow; message: MessageRow; topicHadMessages?: boolean; senderTopicPolicy?: number | null };

/** Applies the sender's automatic policy; returns the new policy when it changed. */
async function applySenderVisibility(tx: Db, env: VisibilityEnv, sent: SentToChannel): Promise<number | undefined> {
  const { sender, stream, message, topicHadMessages, senderTopicPolicy } = sent;
  if (sender.is_bot === 1) return undefined;
  const follow = userSetting(sender, "automatically_follow_topics_policy");
  const unmute = userSetting(sender, "automatically_unmute_topics_in_muted_streams_policy");
  if (follow === 4 && unmute === 4) return undefined;
  const stored = senderTopicPolicy === undefined ? (await getUserTopic(tx, env.realm.id, sender.id, stream.id, message.topic))?.visibility_policy : senderTopicPolicy;
  const current = stored ?? VISIBILITY_POLICY.inherit;
  const policy = await policyForSend(follow, unmute, current, {
    initiated: once(async () => current === VISIBILITY_POLICY.inherit && !(topicHadMessages ?? (await topicHasEarlierMessages(tx, env.engine, env.realm.id, stream.id, message.topic, message.id)))),
    streamMuted: once(async () => (await getSubscription(tx, env.realm.id, sender.id, stream.id))?.is_muted === 1),
  });
  if (policy === null) return undefined;
  await setPolicy(tx, env, sender.id, message, policy);
  return policy;
}

/** Mentioned humans who follow topics where they are mentioned start following this one (unless muted or followed). */
async function followForMentions(tx: Db, env: VisibilityEnv, mentioned: UserRow[], message: MessageRow): Promise<void> {
  for (const user of mentioned) {
    if (user.is_bot === 1 || userSetting(user, "automatically_follow_topics_where_mentioned") !== true) continue;
    const current = (await getUserTopic(tx, env.realm.id, user.id, message.stream_id ?? 0, message.topic))?.visibility_policy;
    if (current === VISIBILITY_POLICY.muted || current === VISIBILITY_POLICY.followed) continue;
    await setPolicy(tx, env, user.id, message, VISIBILITY_POLICY.followed);
  }
}

/** A channel send as the topic visibility rule reads it: the sender, the channel and the receivers it mentions. */
type VisibilitySend = { sender: UserRow; stream: StreamRow; mentionedIds: ReadonlySet<number> };

/** The users whose topic policy a send may set: its sender and the users it mentions. */
export function topicPolicyUsers(send: Pick<VisibilitySend, "sender" | "mentionedIds">): number[] {
  return [send.sender.id, ...send.mentionedIds];
}

/**
 * The automatic topic visibility of a channel send, in its transaction: the sender's policy,
 * then mentioned users' follows. `inserted` is what the message's insert told (whether the topic
 * had messages, the sender's policy; each read here when it did not). Returns the sender's new
 * policy when it changed.
 */
export async function doApplyTopicVisibility(tx: Db, env: VisibilityEnv, send: VisibilitySend, inserted: InsertedMessage): Promise<number | undefined> {
  const { message, topicHadMessages, senderTopicPolicy } = inserted;
  const policy = await applySenderVisibility(tx, env, { sender: send.sender, stream: send.stream, message, topicHadMessages, senderTopicPolicy });
  const mentioned = send.mentionedIds.size === 0 ? [] : await usersByIds(tx, env.realm.id, [...send.mentionedIds]);
  await followForMentions(tx, env, mentioned, message);
  return policy;
}
