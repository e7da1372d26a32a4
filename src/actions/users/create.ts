/** The trusted primitives that create a user or bot row (with its system-group memberships) and grant can_create_users. */
import { nowSeconds } from "../../clock.ts";
import { systemGroupsForRole } from "../../model/roles.ts";
import { hashPassword, randomAlphanumeric } from "../../secrets.ts";
import type { Db } from "../../store/schema/types.ts";
import type { UserRow } from "../../store/schema/database.ts";
import { addMembers, systemGroupsByName } from "../../store/groups/user-groups.ts";
import { insertUser, updateUser } from "../../store/users/users.ts";
import type { DoEnv } from "../context.ts";
import { newUserSettings } from "./setting-rules.ts";
import { doJoinDefaultStreams } from "../channels/default-streams.ts";

/** The row of a user or bot just created. */
export type CreatedUser = UserRow;

/** What creating a user or bot needs (already validated by the caller). */
type NewUserInput = {
  email: string;
  fullName: string;
  role: number;
  password?: string | null;
  timezone?: string;
  /** For bots: Zulip's bot type (1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded). */
  botType?: number;
  botOwnerId?: number | null;
  /** Zulip's can_create_users permission (default: not granted, as for Zulip's first owner). */
  canCreateUsers?: boolean;
  /** People join the realm's default channels unless this is false (an invitation without include_realm_default_subscriptions). */
  joinDefaultStreams?: boolean;
};

/** Inserts the user (checking nothing) and puts it in the system groups of its role. */
export async function doCreateUser(tx: Db, env: Pick<DoEnv, "realm" | "clock">, input: NewUserInput): Promise<CreatedUser> {
  const { realm, clock } = env;
  // The realm's defaults for new users (PATCH /realm/user_settings_defaults).
  const initial = await newUserSettings(tx, realm, input.botType !== undefined);
  const user = await insertUser(tx, {
    realm_id: realm.id,
    delivery_email: input.email,
    email_address_visibility: initial.email_address_visibility,
    full_name: input.fullName,
    role: input.role,
    is_active: 1,
    is_bot: input.botType === undefined ? 0 : 1,
    bot_type: input.botType ?? null,
    bot_owner_id: input.botOwnerId ?? null,
    api_key: randomAlphanumeric(32),
    password_hash: input.password ? await hashPassword(input.password) : null,
    date_joined: nowSeconds(clock),
    timezone: input.timezone ?? "",
    avatar_source: "G",
    avatar_version: 1,
    is_billing_admin: 0,
    settings: initial.settings,
    can_create_users: input.canCreateUsers ? 1 : 0,
  });
  const groups = await systemGroupsByName(tx, realm.id);
  for (const name of systemGroupsForRole(input.role)) {
    const group = groups.get(name);
    if (!group) throw new Error(`realm ${realm.id} lacks system group ${name}`);
    await addMembers(tx, group.id, [user.id]);
  }
  // Zulip's process_new_human_user: people (not bots) join the realm's default channels.
  if (input.botType === undefined && input.joinDefaultStreams !== false) await doJoinDefaultStreams(tx, env, user);
  return user;
}

/** Grants or revokes Zulip's can_create_users permission (POST /users also needs the administrator role). */
export async function doSetCanCreateUsers(tx: Db, env: Pick<DoEnv, "realm">, user: UserRow, allowed: boolean): Promise<UserRow> {
  return updateUser(tx, env.realm.id, user.id, { can_create_users: allowed ? 1 : 0 });
}
