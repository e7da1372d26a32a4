/** A channel's topics, most recent first (GET /users/me/{stream_id}/topics), for the sidebar. */
import { api } from "../api/client.ts";

/** Fetches a channel's topics; the caller stores them (store.ts `topics`), events keep them current. */
export async function fetchTopics(streamId: number): Promise<ReadonlyArray<{ name: string; max_id: number }>> {
  return (await api.topics(streamId)).topics;
}
