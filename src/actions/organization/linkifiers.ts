/**
 * Linkifiers (Zulip's realm filters): administrators add, update, delete and reorder them;
 * everyone may list them. Patterns are checked by markdown/linkifier-patterns.ts.
 */
import type { Transaction } from "kysely";
import { AdministratorRequiredError, JsonableError } from "../../errors.ts";
import { checkLinkifierPattern, patternLengthError } from "../../markdown/linkifier-patterns.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { presentLinkifier, type ApiLinkifier } from "../../present/organization.ts";
import { realmLinkifiersEvent } from "../../events/kinds/organization.ts";
import type { Database } from "../../store/schema/database.ts";
import { deleteLinkifier, getLinkifier, insertLinkifier, listLinkifiers, patternTaken, reorderLinkifiers, updateLinkifier } from "../../store/realm/linkifiers.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { parseUriTemplate } from "../../uri-template.ts";
import { withTransaction, type AuthedCtx, type Emit } from "../context.ts";

/** A linkifier as written. */
type LinkifierInput = { pattern: string; url_template: string };

function checkAdmin(ctx: AuthedCtx): void {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
}

/**
 * Zulip's RealmFilter validation: pattern (RE2 must compile it; at most MAX_PATTERN_LENGTH
 * characters), template, and the same variables in both.
 */
function checkLinkifier(input: LinkifierInput): void {
  if (input.pattern === "") throw new JsonableError("This field cannot be blank.");
  // Before anything reads the pattern, so a huge one is refused at once.
  const tooLong = patternLengthError(input.pattern);
  if (tooLong !== null) throw new JsonableError(tooLong);
  const template = parseUriTemplate(input.url_template);
  if (template === null) throw new JsonableError("Invalid URL template.");
  const groups = new Set(checkLinkifierPattern(input.pattern));
  const variables = new Set(template.variableNames);
  const notInPattern = [...variables].filter((v) => !groups.has(v)).sort();
  if (notInPattern.length > 0) throw new JsonableError(`Group '${notInPattern[0]}' in URL template is not present in linkifier pattern.`);
  const notInTemplate = [...groups].filter((g) => !variables.has(g)).sort();
  if (notInTemplate.length > 0) throw new JsonableError(`Group '${notInTemplate[0]}' in linkifier pattern is not present in URL template.`);
}

async function checkUniquePattern(tx: Transaction<Database>, realmId: number, pattern: string, exceptId: number | null): Promise<void> {
  if (await patternTaken(tx, realmId, pattern, exceptId)) throw new JsonableError("Realm filter with this Realm and Pattern already exists.");
}

/** Announces the realm's linkifiers to every active user (clients without linkifier_url_template get nothing). */
async function notifyLinkifiers(tx: Transaction<Database>, realmId: number, emit: Emit): Promise<void> {
  const linkifiers = (await listLinkifiers(tx, realmId)).map(presentLinkifier);
  emit(realmLinkifiersEvent(linkifiers), await activeUserIds(tx, realmId));
}

/** GET /realm/linkifiers: the realm's linkifiers in processing order. */
export async function getLinkifiers(ctx: AuthedCtx): Promise<{ linkifiers: ApiLinkifier[] }> {
  return { linkifiers: (await listLinkifiers(ctx.db, ctx.realm.id)).map(presentLinkifier) };
}

/** POST /realm/filters: adds a linkifier after the others. */
export async function addLinkifier(ctx: AuthedCtx, input: LinkifierInput): Promise<{ id: number }> {
  checkAdmin(ctx);
  checkLinkifier(input);
  return withTransaction(ctx, async (tx, emit) => {
    await checkUniquePattern(tx, ctx.realm.id, input.pattern, null);
    const id = await insertLinkifier(tx, ctx.realm.id, input);
    await notifyLinkifiers(tx, ctx.realm.id, emit);
    return { id };
  });
}

/** PATCH /realm/filters/{id}: replaces a linkifier's pattern and template, keeping its place. */
export async function changeLinkifier(ctx: AuthedCtx, linkifierId: number, input: LinkifierInput): Promise<Record<string, never>> {
  checkAdmin(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    if (!(await getLinkifier(tx, ctx.realm.id, linkifierId))) throw new JsonableError("Linkifier not found.");
    checkLinkifier(input);
    await checkUniquePattern(tx, ctx.realm.id, input.pattern, linkifierId);
    await updateLinkifier(tx, ctx.realm.id, linkifierId, input);
    await notifyLinkifiers(tx, ctx.realm.id, emit);
  });
  return {};
}

/** DELETE /realm/filters/{id}. */
export async function removeLinkifier(ctx: AuthedCtx, linkifierId: number): Promise<Record<string, never>> {
  checkAdmin(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    if (!(await getLinkifier(tx, ctx.realm.id, linkifierId))) throw new JsonableError("Linkifier not found.");
    await deleteLinkifier(tx, ctx.realm.id, linkifierId);
    await notifyLinkifiers(tx, ctx.realm.id, emit);
  });
  return {};
}

/** PATCH /realm/linkifiers (FL 202): a new processing order naming every linkifier once. */
export async function reorderRealmLinkifiers(ctx: AuthedCtx, orderedIds: number[]): Promise<Record<string, never>> {
  checkAdmin(ctx);
  const wanted = new Set(orderedIds);
  if (wanted.size < orderedIds.length) throw new JsonableError("The ordered list must not contain duplicated linkifiers");
  await withTransaction(ctx, async (tx, emit) => {
    const existing = await listLinkifiers(tx, ctx.realm.id);
    if (existing.length !== wanted.size || existing.some((l) => !wanted.has(l.id))) {
      throw new JsonableError("The ordered list must enumerate all existing linkifiers exactly once");
    }
    if (existing.length === 0) return;
    await reorderLinkifiers(tx, ctx.realm.id, orderedIds);
    await notifyLinkifiers(tx, ctx.realm.id, emit);
  });
  return {};
}
