/**
 * Personal topic visibility (POST /user_topics, and the deprecated
 * PATCH /users/me/subscriptions/muted_topics), with `muted_topics` and `user_topic` events.
 */
import { JsonableError } from "../../errors.ts";
import { mutedTopicsEvent, userTopicEvent } from "../../events/kinds/user-topics.ts";
import { nowSeconds } from "../../clock.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { accessStreamById, accessStreamByName } from "../../permissions/stream-access.ts";
import type { RealmRow, StreamRow, UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { getStreamById, getStreamByName } from "../../store/channels/streams.ts";
import { getUserTopic, setUserTopic, VISIBILITY_POLICY } from "../../store/messages/user-topics.ts";
import { mutedTopicsState } from "../../register/user-topics.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";

/** `(no topic)` and the realm's empty-topic display name stand for the empty topic (FL 334/370). */
function storedTopicName(realm: RealmRow, topic: string): string {
  return topic === "(no topic)" || topic === realmSettings(realm).realm_empty_topic_display_name ? "" : topic;
}

/** Sets a user's policy for a topic; no change (same policy, or nothing to remove) sends no events. */
async function doSetVisibilityPolicy(tx: Db, env: Pick<DoEnv, "realm" | "clock" | "emit">, user: UserRow, stream: StreamRow, topic: string, policy: number): Promise<void> {
  const { realm, emit } = env;
  const existing = await getUserTopic(tx, realm.id, user.id, stream.id, topic);
  const current = existing?.visibility_policy ?? VISIBILITY_POLICY.inherit;
  if (current === policy) return;
  const now = nowSeconds(env.clock);
  await setUserTopic(tx, realm.id, { userId: user.id, streamId: stream.id, topic, policy, now });
  emit(mutedTopicsEvent(await mutedTopicsState(tx, realm, user.id)), [user.id]);
  emit(userTopicEvent(stream.id, topic, policy, now), [user.id]);
}

/** Sets the actor's policy for a topic in one transaction. */
function setVisibilityPolicy(ctx: AuthedCtx, stream: StreamRow, topic: string, policy: number): Promise<void> {
  return withTransaction(ctx, (tx, emit) => doSetVisibilityPolicy(tx, doEnv(ctx, emit), ctx.actor, stream, topic, policy));
}

/** A channel of the realm by id or name without an access check (removing a policy needs none), or `error`. */
async function streamForRemoval(ctx: AuthedCtx, ref: { id?: number; name?: string }, error: string): Promise<StreamRow> {
  const stream = ref.id !== undefined ? await getStreamById(ctx.db, ctx.realm.id, ref.id) : await getStreamByName(ctx.db, ctx.realm.id, ref.name ?? "");
  if (!stream) throw new JsonableError(error);
  return stream;
}

/** POST /user_topics: setting a policy needs access to the channel; removing one only that it exists. */
export async function updateUserTopic(ctx: AuthedCtx, input: { stream_id: number; topic: string; visibility_policy: number }): Promise<Record<string, never>> {
  const stream =
    input.visibility_policy === VISIBILITY_POLICY.inherit
      ? await streamForRemoval(ctx, { id: input.stream_id }, "Invalid channel ID")
      : (await accessStreamById(ctx, input.stream_id)).stream;
  await setVisibilityPolicy(ctx, stream, storedTopicName(ctx.realm, input.topic), input.visibility_policy);
  return {};
}

/** PATCH /users/me/subscriptions/muted_topics (deprecated since FL 170): mute (`add`) or unmute (`remove`). */
export async function updateMutedTopic(ctx: AuthedCtx, input: { stream_id?: number; stream?: string; topic: string; op: "add" | "remove" }): Promise<Record<string, never>> {
  if (input.stream_id === undefined && input.stream === undefined) throw new JsonableError("Please supply 'stream'.");
  if (input.stream_id !== undefined && input.stream !== undefined) throw new JsonableError("Please choose one: 'stream' or 'stream_id'.");
  const ref = { id: input.stream_id, name: input.stream };
  let stream: StreamRow;
  if (input.op === "add") {
    stream = (input.stream_id !== undefined ? await accessStreamById(ctx, input.stream_id) : await accessStreamByName(ctx, input.stream ?? "")).stream;
  } else {
    stream = await streamForRemoval(ctx, ref, "Topic is not muted");
  }
  const policy = input.op === "add" ? VISIBILITY_POLICY.muted : VISIBILITY_POLICY.inherit;
  await setVisibilityPolicy(ctx, stream, storedTopicName(ctx.realm, input.topic), policy);
  return {};
}
