/** POST /messages/flags/narrow: a flag change over a range of a narrow (Zulip's update_message_flags_for_narrow). */
import { JsonableError } from "../../errors.ts";
import { buildNarrow } from "../../narrow/build.ts";
import { parseNarrow } from "../../narrow/parse.ts";
import { applyWithOperator } from "../../narrow/with.ts";
import { fetchMessageRange } from "../../store/messages/message-queries.ts";
import { directRecipientMembers } from "../../store/messages/messages.ts";
import { doEnv, withTransaction, type AuthedCtx } from "../context.ts";
import { parseAnchor } from "./read.ts";
import { readableMessage } from "../../permissions/message-access.ts";
import { narrowScope, queryScope } from "./narrow-scope.ts";
import { checkFlagChange, doUpdateFlags } from "./flags.ts";

/** Zulip's MAX_MESSAGES_PER_UPDATE: a range is clamped so one request changes at most this many. */
const MAX_MESSAGES_PER_UPDATE = 5000;

/** POST /messages/flags/narrow's parameters, decoded. */
type FlagsNarrowInput = {
  anchor: string;
  include_anchor: boolean;
  num_before: number;
  num_after: number;
  narrow: readonly unknown[] | null;
  op: string;
  flag: string;
};

/** Clamps the range so that num_before + num_after stays within MAX_MESSAGES_PER_UPDATE, as Zulip does. */
function clampRange(numBefore: number, numAfter: number): { numBefore: number; numAfter: number } {
  const half = Math.floor(MAX_MESSAGES_PER_UPDATE / 2);
  const before = Math.min(numBefore, Math.max(MAX_MESSAGES_PER_UPDATE - numAfter, half));
  const after = Math.min(numAfter, Math.max(MAX_MESSAGES_PER_UPDATE - before, half));
  return { numBefore: before, numAfter: after };
}

/** POST /messages/flags/narrow: counts of the range processed and of messages actually changed. */
export async function updateMessageFlagsForNarrow(ctx: AuthedCtx, input: FlagsNarrowInput): Promise<Record<string, unknown>> {
  const anchor = parseAnchor(input.anchor, false);
  if (input.num_before > 0 && input.num_after > 0 && !input.include_anchor) throw new JsonableError("The anchor can only be excluded at an end of the range");
  const range = clampRange(input.num_before, input.num_after);
  const members = async (recipientId: number) => (await directRecipientMembers(ctx.db, [recipientId])).get(recipientId) ?? [];
  const terms = await applyWithOperator(parseNarrow(input.narrow ?? []), (id) => readableMessage(ctx, id), members);
  const narrow = await buildNarrow(narrowScope(ctx), terms);
  const found = await fetchMessageRange(queryScope(ctx), narrow, { anchor, ...range, includeAnchor: input.include_anchor });
  const change = checkFlagChange(input.flag, input.op);
  const updated = await withTransaction(ctx, (tx, emit) => doUpdateFlags(tx, doEnv(ctx, emit), ctx.actor, { ...change, flag: input.flag }, found.ids));
  return {
    processed_count: found.ids.length,
    updated_count: updated.length,
    first_processed_id: found.ids[0] ?? null,
    last_processed_id: found.ids[found.ids.length - 1] ?? null,
    found_oldest: found.foundOldest,
    found_newest: found.foundNewest,
  };
}
