/**
 * GET /messages: messages around an anchor (or by id) that match a narrow and that the caller may
 * see, with per-user flags and, for searches, highlighted match fields (Zulip's
 * get_messages_backend). Also the narrow helpers other readers share (flags by narrow).
 */
import { JsonableError } from "../../errors.ts";
import { emailDomain } from "../../model/emails.ts";
import { messageLookups, presentMessage, type ApiMessage, type HiddenSenders, type MessagePresentOptions } from "../../present/messages.ts";
import { unknownUserAvatarUrl } from "../../present/users.ts";
import { inaccessibleUserIds } from "../../permissions/user-access.ts";
import { messageLookupRows } from "../../store/lookups/message-lookups.ts";
import type { AttachedRows } from "../../store/messages/message-attached.ts";
import { flagsFor, messagesWithFlags } from "../../store/messages/message-flags.ts";
import { fetchMessageRangeWithFlags, fetchRequestedMessages, LARGER_THAN_MAX_MESSAGE_ID, type RangeResult } from "../../store/messages/message-queries.ts";
import { directRecipientMembers } from "../../store/messages/messages.ts";
import type { MessageRow, UserRow } from "../../store/schema/database.ts";
import { buildNarrow, type BuiltNarrow } from "../../narrow/build.ts";
import { IncompatibleParametersError } from "../../errors.ts";
import { parseNarrow } from "../../narrow/parse.ts";
import { applyWithOperator } from "../../narrow/with.ts";
import { readableMessage } from "../../permissions/message-access.ts";
import { narrowScope, queryScope } from "./narrow-scope.ts";
import type { AuthedCtx } from "../context.ts";
import { searchFields, searchMatcher, type SearchFields } from "../../narrow/highlight.ts";

/** Zulip's MAX_MESSAGES_PER_FETCH. */
const MAX_MESSAGES_PER_FETCH = 5000;

/** Validates and builds a decoded `narrow` parameter (a list; empty or absent means no narrow). */
export function narrowFromParam(ctx: AuthedCtx, raw: readonly unknown[] | undefined, varName = "narrow"): Promise<BuiltNarrow> {
  return buildNarrow(narrowScope(ctx), parseNarrow(raw ?? [], varName));
}

/**
 * Zulip's parse_anchor_value: `newest`, `oldest`, `first_unread` or an integer (negative means 0,
 * huge means newest); `use_first_unread_anchor` (pre-FL 1) wins over `anchor`.
 */
export function parseAnchor(anchor: string | undefined, useFirstUnread: boolean): number | "first_unread" {
  if (useFirstUnread) return "first_unread";
  if (anchor === undefined) throw new JsonableError("Missing 'anchor' argument.");
  if (anchor === "oldest") return 0;
  if (anchor === "newest") return LARGER_THAN_MAX_MESSAGE_ID;
  if (anchor === "first_unread") return "first_unread";
  if (!/^\s*[+-]?\d+\s*$/.test(anchor)) throw new JsonableError("Invalid anchor");
  return Math.min(Math.max(Number(anchor), 0), LARGER_THAN_MAX_MESSAGE_ID);
}

/**
 * The users (senders) among `users` that `viewer` may not access, shown as "Unknown user"
 * (Zulip's inaccessible_sender_ids), or undefined when there are none. Only a guest outside
 * can_access_all_users_group can have any: for anyone else this asks nothing.
 */
export async function hiddenSenders(ctx: Pick<AuthedCtx, "db" | "realm" | "config">, viewer: UserRow, users: readonly UserRow[]): Promise<HiddenSenders | undefined> {
  const ids = await inaccessibleUserIds(ctx.db, ctx.realm, viewer, users);
  return ids.size > 0 ? { ids, unknownAvatarUrl: unknownUserAvatarUrl(ctx.config.externalUrl) } : undefined;
}

/** How the caller wants messages shown, whether search fields are wanted, and the caller's flags if already read. */
type ShowOptions = MessagePresentOptions & { narrow: BuiltNarrow | null; flags?: ReadonlyMap<number, readonly string[]>; attached?: AttachedRows };

/** Messages with the caller's flags (and match fields for a search), in the order given. */
export async function showMessages(ctx: AuthedCtx, rows: readonly MessageRow[], opts: ShowOptions): Promise<Array<ApiMessage & { flags: readonly string[] } & Partial<SearchFields>>> {
  const [loaded, flags] = await Promise.all([messageLookupRows(ctx.db, ctx.realm.id, rows, opts.attached), opts.flags ?? flagsFor(ctx.db, ctx.actor.id, [...rows])]);
  const lookups = messageLookups(ctx.realm, emailDomain(ctx.config.externalUrl), loaded);
  const hidden = await hiddenSenders(ctx, ctx.actor, loaded.users);
  const search = opts.narrow?.search ?? null;
  const matcher = search ? searchMatcher(search) : null;
  return rows.map((row) => {
    // Flags first: properties after a spread take V8's slow path (see actions/context.ts).
    const shown = { flags: flags.get(row.id) ?? [], ...presentMessage(row, ctx.actor, opts, lookups, hidden) };
    return matcher ? { ...shown, ...searchFields(row.rendered_content, row.topic, matcher) } : shown;
  });
}

/** The parameters of GET /messages, decoded. */
type GetMessagesInput = {
  anchor?: string;
  include_anchor: boolean;
  num_before: number;
  num_after: number;
  narrow?: readonly unknown[] | null;
  client_gravatar: boolean;
  apply_markdown: boolean;
  use_first_unread_anchor: boolean;
  message_ids?: readonly number[];
  allow_empty_topic_name: boolean;
};

const RANGE_PARAMETERS = ["num_before", "num_after", "anchor", "message_ids", "include_anchor", "use_first_unread_anchor"];

function checkRange(input: GetMessagesInput): number | "first_unread" | null {
  const usesRange = input.num_before > 0 || input.num_after > 0 || input.anchor !== undefined || input.use_first_unread_anchor;
  if (input.message_ids !== undefined && usesRange) throw new IncompatibleParametersError(RANGE_PARAMETERS);
  const anchor = input.message_ids === undefined ? parseAnchor(input.anchor, input.use_first_unread_anchor) : null;
  const requested = input.message_ids?.length ?? input.num_before + input.num_after;
  if (requested > MAX_MESSAGES_PER_FETCH) throw new JsonableError(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  if (input.num_before > 0 && input.num_after > 0 && !input.include_anchor) throw new JsonableError("The anchor can only be excluded at an end of the range");
  return anchor;
}

/** GET /messages. */
export async function getMessages(ctx: AuthedCtx, input: GetMessagesInput): Promise<Record<string, unknown>> {
  const parsed = parseNarrow(input.narrow ?? []);
  const anchor = checkRange(input);
  const members = async (recipientId: number) => (await directRecipientMembers(ctx.db, [recipientId])).get(recipientId) ?? [];
  const terms = await applyWithOperator(parsed, (id) => readableMessage(ctx, id), members);
  const narrow = await buildNarrow(narrowScope(ctx), terms);
  const scope = queryScope(ctx);
  // A range reads its rows and the caller's flags with its own queries; an id list, after them.
  const ranged = anchor === null ? null : await fetchMessageRangeWithFlags(scope, narrow, { anchor, numBefore: input.num_before, numAfter: input.num_after, includeAnchor: input.include_anchor });
  const range: RangeResult | null = ranged?.range ?? null;
  const { rows, flags } = ranged ?? (await messagesWithFlags(ctx.db, ctx.realm.id, ctx.actor.id, await fetchRequestedMessages(scope, narrow, input.message_ids ?? [])));
  const messages = await showMessages(ctx, rows, {
    applyMarkdown: input.apply_markdown,
    clientGravatar: input.client_gravatar,
    emptyTopicName: input.allow_empty_topic_name,
    narrow,
    flags,
    attached: ranged?.attached,
  });
  if (!range) return { messages, history_limited: false, found_anchor: false, found_oldest: false, found_newest: false };
  return {
    messages,
    found_anchor: range.foundAnchor,
    found_oldest: range.foundOldest,
    found_newest: range.foundNewest,
    history_limited: range.historyLimited,
    anchor: range.anchor,
  };
}
