/**
 * POST /streams/{stream_id}/delete_topic (Zulip's delete_in_topic): administrators delete a
 * topic's messages newest first, one transaction per batch, so a topic too large for one
 * request still shrinks; past the time budget the answer says `complete: false` and the
 * client calls again.
 */
import { AdministratorRequiredError } from "../../errors.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import type { RealmRow } from "../../store/schema/database.ts";
import { getStreamById } from "../../store/channels/streams.ts";
import { newestTopicMessages } from "../../store/messages/topic-batches.ts";
import { removeAttachmentFiles } from "../attachments/claim.ts";
import { doEnv, withTransaction, type AuthedCtx } from "../context.ts";
import { doDeleteMessages } from "./delete.ts";

/** Messages deleted per transaction (Zulip's RETENTION_STREAM_MESSAGE_BATCH_SIZE). */
const BATCH_SIZE = 100;
/** Time after which the request stops and answers `complete: false` (Zulip's 50 seconds, under proxy timeouts). */
const TIME_BUDGET_MS = 50_000;

/** `(no topic)` and the realm's empty-topic display name stand for the empty topic (FL 334). */
function storedTopicName(realm: RealmRow, topic: string): string {
  return topic === "(no topic)" || topic === realmSettings(realm).realm_empty_topic_display_name ? "" : topic;
}

/** Deletes every message of a topic the caller may see, in batches; `complete` false when time ran out first. */
export async function deleteTopic(ctx: AuthedCtx, streamId: number, input: { topic_name: string }): Promise<{ complete: boolean }> {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
  const { stream } = await accessStreamById(ctx, streamId);
  const topic = storedTopicName(ctx.realm, input.topic_name.trim());
  // Without shared history, only the messages the caller received (Zulip's UserMessage filter).
  const receiverId = stream.history_public_to_subscribers === 1 ? null : ctx.actor.id;
  const deadline = ctx.clock.nowMs() + TIME_BUDGET_MS;
  for (;;) {
    if (ctx.clock.nowMs() >= deadline) return { complete: false };
    const { count, released } = await withTransaction(ctx, async (tx, emit) => {
      const batch = await newestTopicMessages(tx, ctx.realm.id, stream.id, topic, BATCH_SIZE, receiverId);
      if (batch.length === 0) return { count: 0, released: [] };
      // The row read again inside the transaction: an earlier batch may have moved first_message_id.
      const current = (await getStreamById(tx, ctx.realm.id, stream.id)) ?? stream;
      return { count: batch.length, released: await doDeleteMessages(tx, doEnv(ctx, emit), batch, current) };
    });
    await removeAttachmentFiles(ctx.config.uploadsDir, released);
    if (count < BATCH_SIZE) return { complete: true };
  }
}
