/** The trusted primitive that creates a user or bot row and its system-group memberships. */
import { nowSeconds } from "../../clock.ts";
import { systemGroupsForRole } from "../../store/roles.ts";
import { hashPassword, randomAlphanumeric } from "../../secrets.ts";
import type { Db } from "../../store/types.ts";
import type { UserRow } from "../../store/schema.ts";
import { addMembers, systemGroupsByName } from "../../store/user-groups.ts";
import { insertUser } from "../../store/users.ts";
import type { DoEnv } from "../context.ts";

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
};

/** Inserts the user (checking nothing) and puts it in the system groups of its role. */
export async function doCreateUser(tx: Db, env: Pick<DoEnv, "realm" | "clock">, input: NewUserInput): Promise<CreatedUser> {
  const { realm, clock } = env;
  const user = await insertUser(tx, {
    realm_id: realm.id,
    delivery_email: input.email,
    email_address_visibility: 1,
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
    settings: "{}",
  });
  const groups = await systemGroupsByName(tx, realm.id);
  for (const name of systemGroupsForRole(input.role)) {
    const group = groups.get(name);
    if (!group) throw new Error(`realm ${realm.id} lacks system group ${name}`);
    await addMembers(tx, group.id, [user.id]);
  }
  return user;
}
