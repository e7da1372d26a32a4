/** Events that belong to the queue itself rather than to a resource. */

/** Sent to a waiting poll that has had nothing else for a heartbeat interval. */
export type HeartbeatEvent = { type: "heartbeat" };
