/**
 * Automatic topic visibility on send (FL 214/218): the sender's automatically_follow_topics_policy
 * and automatically_unmute_topics_in_muted_streams_policy, and following topics where a user is
 * mentioned (automatically_follow_topics_where_mentioned). Values as Zulip's: 1 on participation,
 * 2 on send, 3 on initiation, 4 never.
 */
import { nowSeconds } from "../clock.ts";
import { userTopicEvent } from "../events/kinds/user-topics.ts";
import { userSettings } from "../state/user-settings.ts";
import type { Db } from "../store/db.ts";
import { topicHasOtherMessages } from "../store/messages.ts";
import type { MessageRow, StreamRow, UserRow } from "../store/schema.ts";
import { getSubscription } from "../store/subscriptions.ts";
import { getUserTopic, setUserTopic, VISIBILITY_POLICY } from "../store/user-topics.ts";
import type { ActionCtx, Emit } from "./context.ts";

const ON_PARTICIPATION = 1;
const ON_SEND = 2;
const ON_INITIATION = 3;

/** The policy sending should set (null: none more visible than the current one). */
function policyForSend(follow: unknown, unmute: unknown, streamMuted: boolean, current: number, initiated: boolean): number | null {
  if (current === VISIBILITY_POLICY.followed) return null;
  const onSend = (p: unknown) => p === ON_PARTICIPATION || p === ON_SEND || (p === ON_INITIATION && initiated);
  if (onSend(follow)) return VISIBILITY_POLICY.followed;
  const unmuted = streamMuted && onSend(unmute) ? VISIBILITY_POLICY.unmuted : null;
  return unmuted === current ? null : unmuted;
}

async function setPolicy(ctx: ActionCtx, tx: Db, emit: Emit, userId: number, message: MessageRow, policy: number): Promise<void> {
  const now = nowSeconds(ctx.clock);
  const streamId = message.stream_id ?? 0;
  await setUserTopic(tx, ctx.realm.id, { userId, streamId, topic: message.topic, policy, now });
  emit(userTopicEvent(streamId, message.topic, policy, now), [userId]);
}

/** Applies the sender's automatic policy; returns the new policy when it changed. */
export async function applySenderVisibility(ctx: ActionCtx, tx: Db, emit: Emit, sender: UserRow, stream: StreamRow, message: MessageRow): Promise<number | undefined> {
  if (sender.is_bot === 1) return undefined;
  const settings = userSettings(ctx, sender);
  const follow = settings.automatically_follow_topics_policy;
  const unmute = settings.automatically_unmute_topics_in_muted_streams_policy;
  if (follow === 4 && unmute === 4) return undefined;
  const current = (await getUserTopic(tx, ctx.realm.id, sender.id, stream.id, message.topic))?.visibility_policy ?? VISIBILITY_POLICY.inherit;
  const streamMuted = (await getSubscription(tx, ctx.realm.id, sender.id, stream.id))?.is_muted === 1;
  const initiated = current === VISIBILITY_POLICY.inherit && !(await topicHasOtherMessages(tx, ctx.realm.id, stream.id, message.topic, message.id));
  const policy = policyForSend(follow, unmute, streamMuted, current, initiated);
  if (policy === null) return undefined;
  await setPolicy(ctx, tx, emit, sender.id, message, policy);
  return policy;
}

/** Mentioned humans who follow topics where they are mentioned start following this one (unless muted or followed). */
export async function followForMentions(ctx: ActionCtx, tx: Db, emit: Emit, mentioned: UserRow[], message: MessageRow): Promise<void> {
  for (const user of mentioned) {
    if (user.is_bot === 1 || userSettings(ctx, user).automatically_follow_topics_where_mentioned !== true) continue;
    const current = (await getUserTopic(tx, ctx.realm.id, user.id, message.stream_id ?? 0, message.topic))?.visibility_policy;
    if (current === VISIBILITY_POLICY.muted || current === VISIBILITY_POLICY.followed) continue;
    await setPolicy(ctx, tx, emit, user.id, message, VISIBILITY_POLICY.followed);
  }
}
