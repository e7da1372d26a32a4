/**
 * Navigation views (Zulip's zerver/views/navigation_views.py, FL 390): a user's settings for
 * built-in left-sidebar views and their own named views, keyed by URL fragment; each change is
 * an event to that user alone.
 */
import { navigationViewAddEvent, navigationViewRemoveEvent, navigationViewUpdateEvent } from "../../events/kinds/sidebar.ts";
import { JsonableError } from "../../errors.ts";
import { presentNavigationView, type ApiNavigationView } from "../../present/sidebar.ts";
import {
  deleteNavigationView,
  getNavigationView,
  insertNavigationView,
  listNavigationViews,
  updateNavigationView,
  type NavigationViewRow,
} from "../../store/users/navigation-views.ts";
import type { Db } from "../../store/schema/types.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";

/** Zulip's BUILT_IN_VIEW_FRAGMENTS: views the client names itself, so they take no name. */
const BUILT_IN_VIEW_FRAGMENTS: ReadonlySet<string> = new Set([
  "inbox",
  "recent",
  "feed",
  "drafts",
  "narrow/has/reaction/sender/me",
  "narrow/is/mentioned",
  "narrow/is/starred",
  "scheduled",
  "reminders",
]);

/** A stripped, non-blank value (Zulip's StringConstraints(strip_whitespace, min_length=1)). */
function nonBlank(name: string, value: string): string {
  const stripped = value.trim();
  if (stripped === "") throw new JsonableError(`${name} cannot be blank`);
  return stripped;
}

async function ownView(db: Db, ctx: AuthedCtx, fragment: string): Promise<NavigationViewRow> {
  const row = await getNavigationView(db, ctx.realm.id, ctx.actor.id, fragment);
  if (!row) throw new JsonableError("Navigation view does not exist.", { status: 404 });
  return row;
}

async function checkNameFree(db: Db, ctx: AuthedCtx, name: string): Promise<void> {
  const views = await listNavigationViews(db, ctx.realm.id, ctx.actor.id);
  if (views.some((v) => v.name === name)) throw new JsonableError("Navigation view already exists.");
}

/** GET /navigation_views: the caller's views. */
export async function getNavigationViews(ctx: AuthedCtx): Promise<{ navigation_views: ApiNavigationView[] }> {
  return { navigation_views: (await listNavigationViews(ctx.db, ctx.realm.id, ctx.actor.id)).map(presentNavigationView) };
}

/** POST /navigation_views: built-in views take no name, custom ones need one; fragments and names are unique per user. */
export async function addNavigationView(ctx: AuthedCtx, input: { fragment: string; is_pinned: boolean; name?: string }): Promise<Record<string, never>> {
  const fragment = nonBlank("fragment", input.fragment);
  const name = input.name === undefined ? null : nonBlank("name", input.name);
  if (BUILT_IN_VIEW_FRAGMENTS.has(fragment)) {
    if (name !== null) throw new JsonableError("Built-in views cannot have a custom name.");
  } else if (name === null) {
    throw new JsonableError("Custom views must have a valid name.");
  }
  await withTransaction(ctx, async (tx, emit) => {
    if (await getNavigationView(tx, ctx.realm.id, ctx.actor.id, fragment)) throw new JsonableError("Navigation view already exists.");
    if (name !== null) await checkNameFree(tx, ctx, name);
    const row = await insertNavigationView(tx, { realm_id: ctx.realm.id, user_id: ctx.actor.id, fragment, is_pinned: input.is_pinned ? 1 : 0, name });
    // A concurrent request added the same fragment first.
    if (!row) throw new JsonableError("Navigation view already exists.");
    emit(navigationViewAddEvent(presentNavigationView(row)), [ctx.actor.id]);
  });
  return {};
}

/** PATCH /navigation_views/{fragment}: the name (custom views only) and/or the pin. */
export async function editNavigationView(ctx: AuthedCtx, rawFragment: string, input: { is_pinned?: boolean; name?: string }): Promise<Record<string, never>> {
  const fragment = nonBlank("fragment", rawFragment);
  const name = input.name === undefined ? undefined : nonBlank("name", input.name);
  if (BUILT_IN_VIEW_FRAGMENTS.has(fragment) && name !== undefined) throw new JsonableError("Built-in views cannot have a custom name.");
  await withTransaction(ctx, async (tx, emit) => {
    if (name !== undefined) await checkNameFree(tx, ctx, name);
    const view = await ownView(tx, ctx, fragment);
    const patch: { name?: string; is_pinned?: number } = {};
    const data: { name?: string; is_pinned?: boolean } = {};
    if (name !== undefined) patch.name = data.name = name;
    if (input.is_pinned !== undefined) {
      patch.is_pinned = input.is_pinned ? 1 : 0;
      data.is_pinned = input.is_pinned;
    }
    if (Object.keys(patch).length === 0) return;
    await updateNavigationView(tx, ctx.realm.id, view.id, patch);
    emit(navigationViewUpdateEvent(fragment, data), [ctx.actor.id]);
  });
  return {};
}

/** DELETE /navigation_views/{fragment}. */
export async function removeNavigationView(ctx: AuthedCtx, rawFragment: string): Promise<Record<string, never>> {
  const fragment = nonBlank("fragment", rawFragment);
  await withTransaction(ctx, async (tx, emit) => {
    const view = await ownView(tx, ctx, fragment);
    await deleteNavigationView(tx, ctx.realm.id, view.id);
    emit(navigationViewRemoveEvent(fragment), [ctx.actor.id]);
  });
  return {};
}
