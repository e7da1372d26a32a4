/**
 * POST /users (Zulip's create_user_backend): an administrator creates a member account, which
 * then goes through what every new person gets (Zulip's process_new_human_user): the realm's
 * default channels and the Welcome Bot's messages.
 */
import { AdministratorRequiredError, JsonableError } from "../../errors.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { ROLE } from "../../model/roles.ts";
import { getUserByDeliveryEmail } from "../../store/users/users.ts";
import { doEnv, withTransaction, type AuthedCtx } from "../context.ts";
import { emitJoinedDefaultStreams } from "../channels/default-streams.ts";
import { checkFullName, checkPassword, emitUserAdded, isEmailAddress } from "../users/accounts.ts";
import { doCreateUser } from "../users/create.ts";
import { ADDRESS_REFUSALS, realmEmailRule } from "../users/email-rules.ts";
import { doWelcomeNewUser } from "./welcome-bot.ts";
import { emitExportConsent } from "../users/export-consent.ts";

/**
 * POST /users: an administrator holding the can_create_users permission (granted from the CLI,
 * as Zulip's change_user_role command does; bots too) creates a member account with a password.
 */
export async function createUser(ctx: AuthedCtx, input: { email: string; password: string; full_name: string }): Promise<{ user_id: number }> {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
  if (ctx.actor.can_create_users !== 1) throw new JsonableError("User not authorized to create users");
  const fullName = checkFullName(input.full_name);
  const email = input.email.trim();
  if (!isEmailAddress(email)) throw new JsonableError("Bad name or username");
  // Upstream's create_user_backend checks the organization's address rules even for administrators.
  const refusal = (await realmEmailRule(ctx.db, ctx.realm))(email);
  if (refusal === "outside_domains") throw new JsonableError(`Email '${email}' not allowed in this organization`);
  if (refusal === "disposable") throw new JsonableError("Disposable email addresses are not allowed in this organization");
  if (refusal === "plus") throw new JsonableError(ADDRESS_REFUSALS.plus);
  checkPassword(input.password);
  return withTransaction(ctx, async (tx, emit) => {
    if (await getUserByDeliveryEmail(tx, ctx.realm.id, email)) throw new JsonableError(`Email '${email}' already in use`);
    const user = await doCreateUser(tx, ctx, { email, fullName, role: ROLE.member, password: input.password });
    await emitUserAdded(tx, ctx, ctx.realm, user, emit);
    await emitJoinedDefaultStreams(ctx, tx, emit, user);
    await doWelcomeNewUser(tx, doEnv(ctx, emit), user);
    await emitExportConsent(tx, ctx.realm.id, user, emit);
    return { user_id: user.id };
  });
}
