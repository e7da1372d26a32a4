/** Code playgrounds (Zulip's realm_playgrounds): administrators add and remove them; everyone hears. */
import type { Transaction } from "kysely";
import { AdministratorRequiredError, JsonableError } from "../../errors.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { presentPlayground } from "../../present/organization.ts";
import { realmPlaygroundsEvent } from "../../events/kinds/organization.ts";
import type { Database } from "../../store/schema/database.ts";
import { deletePlayground, getPlayground, insertPlayground, listPlaygrounds, playgroundExists } from "../../store/realm/playgrounds.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { parseUriTemplate } from "../../uri-template.ts";
import { withTransaction, type AuthedCtx, type Emit } from "../context.ts";

/** A playground to add, as sent. */
type NewPlayground = { name: string; pygments_language: string; url_template: string };

/** Zulip's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
const PYGMENTS_LANGUAGE_LIMIT = 40;

/** Language names are free (custom "languages" are allowed) but limited to these characters, as upstream. */
const PYGMENTS_LANGUAGE_CHARS = /^[ a-zA-Z0-9_+\-./#]*$/;

/** The variable a playground template must use, alone. */
const CODE_VARIABLE = "code";

function checkAdmin(ctx: AuthedCtx): void {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
}

/** Zulip's field validation of a playground, in its order; the first problem is reported. */
function checkPlayground(p: NewPlayground): void {
  if (p.name === "" || p.pygments_language === "") throw new JsonableError("This field cannot be blank.");
  if ([...p.pygments_language].length > PYGMENTS_LANGUAGE_LIMIT) {
    throw new JsonableError(`pygments_language is too long (limit: ${PYGMENTS_LANGUAGE_LIMIT} characters)`);
  }
  if (!PYGMENTS_LANGUAGE_CHARS.test(p.pygments_language)) throw new JsonableError("Invalid characters in pygments language");
  const template = parseUriTemplate(p.url_template);
  if (template === null) throw new JsonableError("Invalid URL template.");
  if (!template.variableNames.includes(CODE_VARIABLE)) throw new JsonableError('Missing the required variable "code" in the URL template');
  if (template.variableNames.length !== 1) throw new JsonableError('"code" should be the only variable present in the URL template');
}

/** Announces the realm's current playgrounds to every active user. */
async function notifyPlaygrounds(tx: Transaction<Database>, realmId: number, emit: Emit): Promise<void> {
  const playgrounds = (await listPlaygrounds(tx, realmId)).map(presentPlayground);
  emit(realmPlaygroundsEvent(playgrounds), await activeUserIds(tx, realmId));
}

/** POST /realm/playgrounds: adds a playground (administrators only). */
export async function addPlayground(ctx: AuthedCtx, input: NewPlayground): Promise<{ id: number }> {
  checkAdmin(ctx);
  checkPlayground(input);
  return withTransaction(ctx, async (tx, emit) => {
    if (await playgroundExists(tx, ctx.realm.id, input.name, input.pygments_language)) {
      throw new JsonableError("Realm playground with this Realm, Pygments language and Name already exists.");
    }
    const id = await insertPlayground(tx, ctx.realm.id, input);
    await notifyPlaygrounds(tx, ctx.realm.id, emit);
    return { id };
  });
}

/** DELETE /realm/playgrounds/{id}: removes a playground (administrators only). */
export async function removePlayground(ctx: AuthedCtx, playgroundId: number): Promise<Record<string, never>> {
  checkAdmin(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    if (!(await getPlayground(tx, ctx.realm.id, playgroundId))) throw new JsonableError("Invalid playground");
    await deletePlayground(tx, ctx.realm.id, playgroundId);
    await notifyPlaygrounds(tx, ctx.realm.id, emit);
  });
  return {};
}
