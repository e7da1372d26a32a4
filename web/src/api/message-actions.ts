/**
 * The calls of the message, topic and user menus, typed: a message's edit history and read
 * receipts, marking a range of a narrow unread (POST /messages/flags/narrow), a topic's
 * visibility policy (POST /user_topics) and muting users. Each is an endpoint Parley serves.
 */
import { call, type Params } from "./client.ts";

/** One version of a message, as GET /messages/{id}/history lists them (oldest first): the fields the app reads. */
export type HistorySnapshot = {
  timestamp: number;
  user_id: number | null;
  topic: string;
  rendered_content: string;
  prev_topic?: string;
  prev_content?: string;
  prev_stream?: number;
  stream?: number;
};

/** GET /messages/{id}/history. */
export type HistoryResponse = { message_history: HistorySnapshot[] };

/** POST /messages/flags/narrow: how far the update reached. */
export type FlagsNarrowResponse = { processed_count: number; updated_count: number; first_processed_id: number | null; last_processed_id: number | null; found_oldest: boolean; found_newest: boolean };

/** The calls, typed. */
export const actionsApi = {
  history: (messageId: number) => call<HistoryResponse>("GET", `/messages/${messageId}/history`),
  readReceipts: (messageId: number) => call<{ user_ids: number[] }>("GET", `/messages/${messageId}/read_receipts`),
  flagsForNarrow: (params: Params) => call<FlagsNarrowResponse>("POST", "/messages/flags/narrow", params),
  setTopicPolicy: (streamId: number, topic: string, policy: number) => call<object>("POST", "/user_topics", { stream_id: streamId, topic, visibility_policy: policy }),
  muteUser: (userId: number) => call<object>("POST", `/users/me/muted_users/${userId}`),
  unmuteUser: (userId: number) => call<object>("DELETE", `/users/me/muted_users/${userId}`),
};
