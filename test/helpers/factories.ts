/**
 * Factories for a suite's data, made through the API as a client would: users with a role,
 * channels with their subscribers, channel and direct messages.
 */
import { expectSuccess, type ApiClient, type Credentials, type Params, type RequestOptions } from "./client.ts";
import type { Fixtures } from "./fixtures.ts";

/** What a factory needs of a server: its client (a TestServer, a suite's server, a peer process). */
export type ApiHost = { api: ApiClient };

/** An account a factory made: its credentials and id. */
export type Account = Credentials & { id: number };

let counter = 0;

/**
 * Creates a member through POST /users (as the fixture owner) and logs it in; `role`, when
 * given, is then set with PATCH /users/{id}.
 */
export async function createUser(server: ApiHost & { fixtures: Fixtures }, opts: { name?: string; role?: number } = {}): Promise<Account> {
  counter += 1;
  const email = `person${counter}-${Date.now()}@example.com`;
  const password = "account-password-1";
  const fullName = opts.name ?? `Person ${counter}`;
  const { user_id } = expectSuccess(await server.api.post(server.fixtures.owner, "/users", { email, password, full_name: fullName }));
  const { api_key } = expectSuccess(await server.api.post(null, "/fetch_api_key", { username: email, password }));
  if (opts.role !== undefined) expectSuccess(await server.api.patch(server.fixtures.owner, `/users/${user_id}`, { role: opts.role }));
  return { id: user_id, email, apiKey: api_key };
}

/**
 * Subscribes `user` to the channel `name`, creating it with `extra`'s settings (`principals`
 * subscribes those users instead), and returns its id.
 */
export async function createStream(server: ApiHost, user: Credentials, name: string, extra: Params = {}): Promise<number> {
  expectSuccess(await server.api.post(user, "/users/me/subscriptions", { subscriptions: [{ name }], ...extra }));
  return expectSuccess(await server.api.get(user, "/get_stream_id", { stream: name })).stream_id as number;
}

/** Sends a message (POST /messages with `params`) as `user` and returns its id. */
export async function sendMessage(server: ApiHost, user: Credentials, params: Params, opts?: RequestOptions): Promise<number> {
  return expectSuccess(await server.api.post(user, "/messages", params, opts)).id as number;
}

/** Sends `content` to a channel's topic as `user` and returns the message's id; `extra` adds parameters. */
export function sendStreamMessage(server: ApiHost, user: Credentials, to: string | number, topic: string, content: string, extra: Params = {}): Promise<number> {
  return sendMessage(server, user, { type: "stream", to, topic, content, ...extra });
}

/** Sends a direct message as `user` to the users `to` (ids) and returns its id; `extra` adds parameters. */
export function sendDirectMessage(server: ApiHost, user: Credentials, to: number[], content: string, extra: Params = {}): Promise<number> {
  return sendMessage(server, user, { type: "direct", to: JSON.stringify(to), content, ...extra });
}

/** A suite's sender: `send(user, params)` sends `{ ...defaults, ...params }` as `user` and returns the id. */
export function messageSender(server: ApiHost, defaults: Params = {}): (user: Credentials, params: Params) => Promise<number> {
  return (user, params) => sendMessage(server, user, { ...defaults, ...params });
}
