/** `user_topic` events (a user's visibility policy for a topic changed) and the deprecated `muted_topics`. */

/** One changed topic policy, sent to the user whose policy it is. */
export type UserTopicEvent = {
  type: "user_topic";
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
};

/** The event sent to the user whose policy for a topic changed (0 inherit, 1 muted, 2 unmuted, 3 followed). */
export function userTopicEvent(streamId: number, topicName: string, visibilityPolicy: number, lastUpdated: number): UserTopicEvent {
  return { type: "user_topic", stream_id: streamId, topic_name: topicName, last_updated: lastUpdated, visibility_policy: visibilityPolicy };
}

/** [channel name, topic, time muted] of one muted topic, as the deprecated `muted_topics` lists it. */
type MutedTopic = [string, string, number];

/** The user's whole list of muted topics (superseded by `user_topic` in FL 134), sent before it. */
export type MutedTopicsEvent = { type: "muted_topics"; muted_topics: MutedTopic[] };

/** The event carrying the user's muted topics after a policy change. */
export function mutedTopicsEvent(mutedTopics: MutedTopic[]): MutedTopicsEvent {
  return { type: "muted_topics", muted_topics: mutedTopics };
}
