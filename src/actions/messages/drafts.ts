/**
 * Synchronised drafts (Zulip's zerver/lib/drafts.py): list, create in bulk, replace and delete
 * the caller's own, each change an event to their queues. A user who turned
 * enable_drafts_synchronization off is refused every call, as Zulip's draft_endpoint does.
 */
import { draftRemoveEvent, draftsAddEvent, draftUpdateEvent } from "../../events/kinds/drafts.ts";
import { DraftDoesNotExistError, JsonableError } from "../../errors.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { directAudience, presentDraft, type ApiDraft } from "../../present/drafts.ts";
import { deleteDraft, getOwnDraft, insertDrafts, listDrafts, updateDraft } from "../../store/messages/drafts.ts";
import { apiEmail, emailDomain } from "../../model/emails.ts";
import type { DraftRow } from "../../store/schema/drafts.ts";
import type { UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { userSetting } from "../../model/user-settings.ts";
import { usersByIds } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";
import { normalizeContent } from "./send-content.ts";

/** A draft as clients send it (Zulip's DraftData). */
type DraftInput = { type: "" | "private" | "stream"; to: number[]; topic: string; content: string; timestamp?: number | null };

/** What a checked draft stores. */
type DraftValues = Pick<DraftRow, "stream_id" | "direct_user_ids" | "topic" | "content" | "last_edit_time">;

/** The latest time a datetime holds (9999-12-31T23:59:59Z): Zulip cannot store a later draft time. */
const MAX_TIMESTAMP_SECONDS = 253_402_300_799;
/** What a topic longer than max_topic_length ends with (Zulip's truncate_topic). */
const TOPIC_TRUNCATION = "...";

/** Zulip's draft_endpoint: every drafts call needs the user's synchronisation on. */
function checkDraftsEnabled(ctx: AuthedCtx): void {
  if (userSetting(ctx.actor, "enable_drafts_synchronization") === false) throw new JsonableError("User has disabled synchronizing drafts.");
}

function truncateTopic(topic: string, max: number): string {
  const chars = [...topic];
  return chars.length > max ? chars.slice(0, max - TOPIC_TRUNCATION.length).join("") + TOPIC_TRUNCATION : topic;
}

/** The edit time: given (rounded to microseconds, as Zulip keeps it) or now. */
function editTime(ctx: AuthedCtx, timestamp: number | null | undefined): number {
  const seconds = timestamp === undefined || timestamp === null ? ctx.clock.nowMs() / 1000 : Math.round(timestamp * 1e6) / 1e6;
  if (seconds < 0) throw new JsonableError("Timestamp must not be negative.");
  if (!(seconds <= MAX_TIMESTAMP_SECONDS)) throw new JsonableError("Timestamp is too large.");
  return seconds;
}

/** The users of a direct-message draft, as Zulip's get_user_profiles_by_ids and recipient checks refuse them. */
async function draftRecipients(ctx: AuthedCtx, db: Db, ids: number[]): Promise<UserRow[]> {
  const unique = [...new Set(ids)];
  const users = await usersByIds(db, ctx.realm.id, unique);
  const byId = new Map(users.map((u) => [u.id, u]));
  const host = emailDomain(ctx.config.externalUrl);
  for (const id of unique) {
    const user = byId.get(id);
    if (!user) throw new JsonableError(`Invalid user ID ${id}`);
    if (user.is_active === 0) throw new JsonableError(`'${apiEmail(user, host)}' is no longer using Zulip.`);
  }
  return users;
}

/** Zulip's further_validated_draft_dict: content and topic rules, the channel or users checked. */
async function checkDraft(ctx: AuthedCtx, db: Db, draft: DraftInput): Promise<DraftValues> {
  const content = normalizeContent(draft.content, ctx.realm);
  const last_edit_time = editTime(ctx, draft.timestamp);
  const none = { stream_id: null, direct_user_ids: null, topic: "", content, last_edit_time };
  if (draft.type === "stream") {
    const topic = truncateTopic(draft.topic, realmSettings(ctx.realm).max_topic_length);
    if (topic.includes("\u0000")) throw new JsonableError("Topic must not contain null bytes");
    if (draft.to.length !== 1) throw new JsonableError("Must specify exactly 1 channel ID for channel messages");
    const { stream } = await accessStreamById(ctx, draft.to[0]);
    return { ...none, stream_id: stream.id, topic };
  }
  if (draft.type === "private" && draft.to.length > 0) {
    const users = await draftRecipients(ctx, db, draft.to);
    return { ...none, direct_user_ids: JSON.stringify(directAudience(users.map((u) => u.id), ctx.actor.id)) };
  }
  return none;
}

async function ownDraft(ctx: AuthedCtx, db: Db, id: number): Promise<DraftRow> {
  const row = await getOwnDraft(db, ctx.realm.id, ctx.actor.id, id);
  if (!row) throw new DraftDoesNotExistError();
  return row;
}

/** GET /drafts: the caller's drafts by last edit time, oldest first (as Zulip's fetch_drafts orders them). */
export async function listOwnDrafts(ctx: AuthedCtx): Promise<{ count: number; drafts: ApiDraft[] }> {
  checkDraftsEnabled(ctx);
  const drafts = (await listDrafts(ctx.db, ctx.realm.id, ctx.actor.id, { newestFirst: false })).map(presentDraft);
  return { count: drafts.length, drafts };
}

/** POST /drafts: checks every draft, then creates them all (or none); returns their ids in order. */
export async function createDrafts(ctx: AuthedCtx, input: { drafts: DraftInput[] }): Promise<number[]> {
  checkDraftsEnabled(ctx);
  const values: DraftValues[] = [];
  for (const draft of input.drafts) values.push(await checkDraft(ctx, ctx.db, draft));
  if (values.length === 0) return [];
  return withTransaction(ctx, async (tx, emit) => {
    const rows = await insertDrafts(tx, values.map((v) => ({ ...v, realm_id: ctx.realm.id, user_id: ctx.actor.id })));
    emit(draftsAddEvent(rows.map(presentDraft)), [ctx.actor.id]);
    return rows.map((r) => r.id);
  });
}

/** PATCH /drafts/{draft_id}: replaces one of the caller's drafts. */
export async function editDraft(ctx: AuthedCtx, draftId: number, input: { draft: DraftInput }): Promise<void> {
  checkDraftsEnabled(ctx);
  await ownDraft(ctx, ctx.db, draftId);
  const values = await checkDraft(ctx, ctx.db, input.draft);
  await withTransaction(ctx, async (tx, emit) => {
    await ownDraft(ctx, tx, draftId);
    const row = await updateDraft(tx, ctx.realm.id, draftId, values);
    emit(draftUpdateEvent(presentDraft(row)), [ctx.actor.id]);
  });
}

/** DELETE /drafts/{draft_id}: deletes one of the caller's drafts. */
export async function removeDraft(ctx: AuthedCtx, draftId: number): Promise<void> {
  checkDraftsEnabled(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    await ownDraft(ctx, tx, draftId);
    await deleteDraft(tx, ctx.realm.id, draftId);
    emit(draftRemoveEvent(draftId), [ctx.actor.id]);
  });
}
