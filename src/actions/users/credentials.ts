/**
 * Trusted primitives behind the admin CLI (also used by the user actions). They check nothing:
 * callers validate arguments and refusals first.
 */
import { ROLE } from "../../model/roles.ts";
import { hashPassword, randomAlphanumeric } from "../../secrets.ts";
import type { Db } from "../../store/schema/types.ts";
import type { UserRow } from "../../store/schema/database.ts";
import { activeBotIdsOwnedBy, insertService, setUsersActive, updateUser } from "../../store/users/users.ts";
import { deleteUserSessions } from "../../store/users/sessions.ts";
import type { DoEnv } from "../context.ts";
import { doCreateUser, type CreatedUser } from "./create.ts";

/** Zulip's bot types, by the CLI's names. */
export const BOT_TYPE = { generic: 1, incoming: 2, outgoing: 3 } as const;

/** Outgoing-webhook service interface: 1 is Zulip's generic JSON payload. */
const GENERIC_INTERFACE = 1;

/** What creating a bot needs (already validated by the caller). */
type NewBotInput = { email: string; fullName: string; botType: number; ownerId: number; serviceUrl: string | null };

/** Creates a bot (role member) and, for outgoing-webhook bots, its service row with a fresh token. */
export async function doCreateBot(tx: Db, env: Pick<DoEnv, "realm" | "clock">, input: NewBotInput): Promise<CreatedUser> {
  const bot = await doCreateUser(tx, env, {
    email: input.email,
    fullName: input.fullName,
    role: ROLE.member,
    botType: input.botType,
    botOwnerId: input.ownerId,
  });
  if (input.serviceUrl !== null) {
    await insertService(tx, env.realm.id, { botUserId: bot.id, baseUrl: input.serviceUrl, token: randomAlphanumeric(32), interface: GENERIC_INTERFACE });
  }
  return bot;
}

/** Replaces a user's API key; the old one stops working at once. */
export async function doRegenerateApiKey(tx: Db, env: Pick<DoEnv, "realm">, user: UserRow): Promise<string> {
  const apiKey = randomAlphanumeric(32);
  await updateUser(tx, env.realm.id, user.id, { api_key: apiKey });
  return apiKey;
}

/**
 * Deactivates a user and, as Zulip does, the active bots they own, and ends their browser
 * sessions (Zulip's delete_user_sessions); returns the ids deactivated.
 */
export async function doDeactivateUser(tx: Db, env: Pick<DoEnv, "realm">, user: UserRow): Promise<number[]> {
  const bots = user.is_bot === 1 ? [] : await activeBotIdsOwnedBy(tx, env.realm.id, user.id);
  const ids = [user.id, ...bots];
  await setUsersActive(tx, env.realm.id, ids, false);
  await deleteUserSessions(tx, env.realm.id, ids);
  return ids;
}

/** Stores a new scrypt hash of the password and ends the user's browser sessions. */
export async function doSetPassword(tx: Db, env: Pick<DoEnv, "realm">, user: UserRow, password: string): Promise<void> {
  await doSetPasswordHash(tx, env, user, await hashPassword(password));
}

/** Stores a password hash made before the transaction (scrypt takes ~50 ms) and ends the user's browser sessions. */
export async function doSetPasswordHash(tx: Db, env: Pick<DoEnv, "realm">, user: UserRow, hash: string): Promise<void> {
  await updateUser(tx, env.realm.id, user.id, { password_hash: hash });
  await deleteUserSessions(tx, env.realm.id, [user.id]);
}

/** The per-user special permission SPEC.md requires (with the owner role) for `new_email`. */
export const CAN_CHANGE_USER_EMAILS = "can_change_user_emails";

/** Sets a boolean in the user's settings JSON (e.g. can_change_user_emails). */
export async function doSetUserFlagSetting(tx: Db, env: Pick<DoEnv, "realm">, user: UserRow, key: string, value: boolean): Promise<void> {
  const settings: Record<string, unknown> = { ...parseSettings(user.settings), [key]: value };
  await updateUser(tx, env.realm.id, user.id, { settings: JSON.stringify(settings) });
}

function parseSettings(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text || "{}");
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? { ...parsed } : {};
}
