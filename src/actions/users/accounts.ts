/** Reading users, the account rules creating one follows (names, passwords, addresses), the new-user event, and regenerating one's own API key. */
import { MAX_STORED_ID, type Db } from "../../store/schema/types.ts";
import { JsonableError } from "../../errors.ts";
import { apiEmail, emailDomain } from "../../model/emails.ts";
import { canSeeDeliveryEmail } from "../../permissions/email-visibility.ts";
import { maxReceivedMessageId } from "../../store/lookups/unreads.ts";
import { avatarUrl, gravatarUrl, presentUnknownUser, presentUser, profileDataOf, unknownUserAvatarUrl } from "../../present/users.ts";
import { nowSeconds } from "../../clock.ts";
import { realmBotUpdateEvent } from "../../events/kinds/bots.ts";
import { realmUserAddEvent } from "../../events/kinds/users.ts";
import { profileValuesByUser } from "../../store/realm/custom-profile.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import { getUser as getUserRow, getUserByDeliveryEmail, listUsers } from "../../store/users/users.ts";
import { doRegenerateApiKey } from "./credentials.ts";
import { withTransaction, type ActionCtx, type AuthedCtx, type Emit } from "../context.ts";
import { accessUserByEmail, accessUserById, botAdministratorIds, inaccessibleUserIds, usersWhoCanAccess } from "../../permissions/user-access.ts";

/** Options of the user-reading endpoints. */
type UserQuery = { client_gravatar: boolean; include_custom_profile_fields: boolean };

const MAX_NAME_LENGTH = 100;
const MIN_NAME_LENGTH = 2;
// Characters Zulip refuses in names: they would break mention syntax or look like addresses.
const NAME_INVALID_CHARS = ["*", "`", "\\", ">", '"', "@"];
// Zulip's password floor (PASSWORD_MIN_LENGTH); there is no strength estimator here.
const PASSWORD_MIN_LENGTH = 6;
const EMAIL_SHAPE = /^[^\s@<>(),;:"[\]]+@[^\s@<>(),;:"[\]]+$/;

/** Validates and trims a full name with Zulip's rules and messages. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > MAX_NAME_LENGTH) throw new JsonableError("Name too long!");
  if (name.length < MIN_NAME_LENGTH) throw new JsonableError("Name too short!");
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name) || NAME_INVALID_CHARS.some((c) => name.includes(c))) {
    throw new JsonableError("Invalid characters in name!");
  }
  // A trailing `|15` would read as a user id in mention syntax.
  if (/\|\d+$/.test(raw)) throw new JsonableError("Invalid format!");
  return name;
}

/** Refuses a password below Zulip's floor, with its message. */
export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw new JsonableError("The password is too weak.");
}

/** Whether a string has the shape of an email address. */
export function isEmailAddress(value: string): boolean {
  return EMAIL_SHAPE.test(value) && value.length <= 254;
}

/** A stored user as `viewer` sees it, in a response (is_active included). */
async function presentForViewer(ctx: AuthedCtx, users: UserRow[], q: UserQuery): Promise<Record<string, unknown>[]> {
  const host = emailDomain(ctx.config.externalUrl);
  const hidden = await inaccessibleUserIds(ctx.db, ctx.realm, ctx.actor, users);
  const values = q.include_custom_profile_fields ? await profileValuesByUser(ctx.db, ctx.realm.id, users.map((u) => u.id)) : null;
  return users.map((u) =>
    hidden.has(u.id)
      ? presentUnknownUser(u.id, { host, externalUrl: ctx.config.externalUrl, nowSeconds: nowSeconds(ctx.clock), includeIsActive: true })
      : presentUser(u, {
          viewer: ctx.actor,
          host,
          clientGravatar: q.client_gravatar,
          includeAvatarUrl: true,
          profileData: values ? profileDataOf(values.get(u.id) ?? []) : undefined,
          includeIsActive: true,
        }),
  );
}

/** GET /users: every user and bot of the realm, placeholders for those the caller may not access. */
export async function getUsers(ctx: AuthedCtx, q: UserQuery): Promise<{ members: Record<string, unknown>[] }> {
  return { members: await presentForViewer(ctx, await listUsers(ctx.db, ctx.realm.id), q) };
}

/** GET /users/{user_id} and GET /users/{email}. */
export async function getUser(ctx: AuthedCtx, idOrEmail: number | string, q: UserQuery): Promise<{ user: Record<string, unknown> }> {
  const opts = { allowDeactivated: true, allowBots: true, forAdmin: false };
  const target = typeof idOrEmail === "number" ? await accessUserById(ctx, idOrEmail, opts) : await accessUserByEmail(ctx, idOrEmail, opts);
  const [user] = await presentForViewer(ctx, [target], q);
  return { user };
}

/** GET /users/me: the caller's own account, with its custom profile data and (deprecated, still documented) the newest message id it received. */
export async function getOwnUser(ctx: AuthedCtx): Promise<Record<string, unknown>> {
  const [[own], maxMessageId] = await Promise.all([
    presentForViewer(ctx, [ctx.actor], { client_gravatar: false, include_custom_profile_fields: ctx.actor.is_bot === 0 }),
    maxReceivedMessageId(ctx.db, ctx.realm.id, ctx.actor.id),
  ]);
  // The documented own-user shape has no bot fields.
  const { bot_type: _type, bot_owner_id: _owner, ...rest } = own;
  return { ...rest, max_message_id: maxMessageId };
}

/** The realm_user add event for a new or newly visible user, to each user who may access it. */
export async function emitUserAdded(tx: Db, ctx: Pick<ActionCtx, "config">, realm: RealmRow, user: UserRow, emit: Emit): Promise<void> {
  const host = emailDomain(ctx.config.externalUrl);
  const recipients = await usersWhoCanAccess(tx, realm, user);
  // Those who may see the real address get it; the others get null, as separate events.
  for (const seesEmail of [true, false]) {
    const group = recipients.filter((r) => canSeeDeliveryEmail(r, user) === seesEmail);
    if (group.length === 0) continue;
    const person = presentUser(user, {
      viewer: seesEmail ? user : null,
      host,
      clientGravatar: false,
      includeAvatarUrl: true,
      profileData: user.is_bot === 1 ? undefined : {},
      includeIsActive: true,
    });
    emit(realmUserAddEvent(person), group.map((r) => r.id));
  }
}

/** POST /users/me/api_key/regenerate: a new API key for the caller; the old one stops working. */
export async function regenerateOwnApiKey(ctx: AuthedCtx): Promise<{ api_key: string }> {
  return withTransaction(ctx, async (tx, emit) => {
    const apiKey = await doRegenerateApiKey(tx, ctx, ctx.actor);
    if (ctx.actor.is_bot === 1) {
      emit(realmBotUpdateEvent(ctx.actor.id, { api_key: apiKey }), await botAdministratorIds(tx, ctx.realm, ctx.actor));
    }
    return { api_key: apiKey };
  });
}

/**
 * GET /avatar/{user_id}: where the user's avatar lives. A user id or API email names a user; an
 * unknown one gets the gravatar of the text given, an inaccessible one the "unknown user" image.
 */
export async function avatarLocation(ctx: AuthedCtx, ref: string, medium: boolean): Promise<string> {
  const host = emailDomain(ctx.config.externalUrl);
  const dummy = /^user(\d+)@(.+)$/i.exec(ref);
  // An id beyond any row's names nobody (and must not reach the database).
  const id = /^\d+$/.test(ref) ? Math.min(Number(ref), MAX_STORED_ID + 1) : dummy && dummy[2].toLowerCase() === host.toLowerCase() ? Number(dummy[1]) : null;
  const byEmail = id === null ? await getUserByDeliveryEmail(ctx.db, ctx.realm.id, ref) : undefined;
  const target = id !== null ? id > MAX_STORED_ID ? undefined : await getUserRow(ctx.db, ctx.realm.id, id) : byEmail && apiEmail(byEmail, host).toLowerCase() === ref.toLowerCase() ? byEmail : undefined;
  if (!target) return gravatarUrl(ref, 1, medium);
  if ((await inaccessibleUserIds(ctx.db, ctx.realm, ctx.actor, [target])).has(target.id)) return unknownUserAvatarUrl(ctx.config.externalUrl);
  return avatarUrl(target, medium);
}
