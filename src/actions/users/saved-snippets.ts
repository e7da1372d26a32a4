/** Saved snippets: create, list, edit and delete the caller's own; each change is an event to them. */
import { nowSeconds } from "../../clock.ts";
import { savedSnippetEvent, savedSnippetRemoveEvent } from "../../events/kinds/snippets.ts";
import { SavedSnippetNotFoundError } from "../../errors.ts";
import { presentSavedSnippet, type ApiSavedSnippet } from "../../present/attachments.ts";
import type { Db } from "../../store/schema/types.ts";
import { deleteSavedSnippet, getOwnSavedSnippet, insertSavedSnippet, listSavedSnippets, updateSavedSnippet, type SavedSnippetRow } from "../../store/users/saved-snippets.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";

async function ownSnippet(ctx: AuthedCtx, db: Db, id: number): Promise<SavedSnippetRow> {
  const row = await getOwnSavedSnippet(db, ctx.realm.id, ctx.actor.id, id);
  if (!row) throw new SavedSnippetNotFoundError();
  return row;
}

/** The caller's snippets. */
export async function listOwnSavedSnippets(ctx: AuthedCtx): Promise<ApiSavedSnippet[]> {
  return (await listSavedSnippets(ctx.db, ctx.realm.id, ctx.actor.id)).map(presentSavedSnippet);
}

/** Creates a snippet (title and content already trimmed and checked) and returns its id. */
export function createSavedSnippet(ctx: AuthedCtx, input: { title: string; content: string }): Promise<number> {
  return withTransaction(ctx, async (tx, emit) => {
    const row = await insertSavedSnippet(tx, { realm_id: ctx.realm.id, user_id: ctx.actor.id, title: input.title, content: input.content, date_created: nowSeconds(ctx.clock) });
    emit(savedSnippetEvent("add", presentSavedSnippet(row)), [ctx.actor.id]);
    return row.id;
  });
}

/** Edits one of the caller's snippets; with nothing to change it does nothing, as Zulip. */
export async function editSavedSnippet(ctx: AuthedCtx, id: number, patch: { title?: string; content?: string }): Promise<void> {
  if (patch.title === undefined && patch.content === undefined) return;
  await withTransaction(ctx, async (tx, emit) => {
    await ownSnippet(ctx, tx, id);
    const row = await updateSavedSnippet(tx, ctx.realm.id, id, patch);
    emit(savedSnippetEvent("update", presentSavedSnippet(row)), [ctx.actor.id]);
  });
}

/** Deletes one of the caller's snippets. */
export async function removeSavedSnippet(ctx: AuthedCtx, id: number): Promise<void> {
  await withTransaction(ctx, async (tx, emit) => {
    await ownSnippet(ctx, tx, id);
    await deleteSavedSnippet(tx, ctx.realm.id, id);
    emit(savedSnippetRemoveEvent(id), [ctx.actor.id]);
  });
}
