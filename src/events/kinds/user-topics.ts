/** `user_topic` events: a user's visibility policy for a topic changed. */

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
