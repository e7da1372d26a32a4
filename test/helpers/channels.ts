/** Channel set-up shared by suites. */
import { expectSuccess, type ApiClient, type Credentials } from "./client.ts";

/** Subscribes `user` to a channel named `name` (creating it with `extra`'s settings) and returns its id. */
export async function makeStream(api: ApiClient, user: Credentials, name: string, extra: Record<string, unknown> = {}): Promise<number> {
  expectSuccess(await api.post(user, "/users/me/subscriptions", { subscriptions: [{ name }], ...extra }));
  return expectSuccess(await api.get(user, "/get_stream_id", { stream: name })).stream_id as number;
}
