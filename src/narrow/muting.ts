/**
 * Muting (Zulip's exclude_stream_and_topic_mutes): `in:home` and the first-unread anchor leave
 * out muted topics, and messages of muted channels unless their topic is unmuted or followed.
 * Channel muting does not apply to a narrow of that channel itself.
 */
import type { MessageCondition } from "../store/messages/message-narrow.ts";
import { notMutedTopicSql, unmutedSql } from "../store/messages/narrow-visibility.ts";
import { mutedStreamIds } from "../store/channels/subscriptions.ts";
import type { NarrowScope } from "./lookups.ts";

/** SQL: the message is not hidden by the viewer's muting; `channelStreamId` is the narrow's channel, if any. */
export async function mutingSql(scope: NarrowScope, channelStreamId: number | null): Promise<MessageCondition> {
  const userId = scope.viewer.id;
  if (channelStreamId !== null) return notMutedTopicSql(userId);
  return unmutedSql(userId, await mutedStreamIds(scope.db, scope.realmId, userId));
}
