/**
 * The fixture organization every suite starts with, created through the real primitives before
 * the server starts: users named for their roles, each with a known password.
 */
import { doCreateRealm } from "../../src/actions/organization/bootstrap.ts";
import { doCreateUser } from "../../src/actions/users/create.ts";
import { systemClock } from "../../src/clock.ts";
import { ROLE } from "../../src/model/roles.ts";
import { migrate, openStore } from "../../src/store/db.ts";
import type { FreshStore } from "./stores.ts";

/** A fixture account: what a client needs to authenticate. */
export type TestUser = { id: number; email: string; apiKey: string; password: string; fullName: string; role: number };

export type Fixtures = {
  realmId: number;
  owner: TestUser;
  admin: TestUser;
  moderator: TestUser;
  member: TestUser;
  guest: TestUser;
  /** A generic bot owned by `member`. */
  bot: TestUser;
};

export const FIXTURE_PASSWORD = "fixture-password-1";

const PEOPLE = [
  ["owner", "Olivia Owner", ROLE.owner],
  ["admin", "Adam Admin", ROLE.administrator],
  ["moderator", "Mona Moderator", ROLE.moderator],
  ["member", "Max Member", ROLE.member],
  ["guest", "Gus Guest", ROLE.guest],
] as const;

/** Migrates the store and creates the fixture realm and users. */
export async function createFixtures(store: FreshStore): Promise<Fixtures> {
  const s = openStore({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  try {
    await migrate(s);
    const realm = await s.db.transaction().execute((tx) => doCreateRealm(tx, { clock: systemClock }, { name: "Test Org", stringId: "" }));
    const env = { realm, clock: systemClock };
    const out: Partial<Fixtures> = { realmId: realm.id };
    for (const [key, fullName, role] of PEOPLE) {
      const email = `${key}@example.com`;
      // The fixture owner and administrator hold can_create_users, so suites may call POST /users.
      const canCreateUsers = role === ROLE.owner || role === ROLE.administrator;
      const row = await s.db.transaction().execute((tx) => doCreateUser(tx, env, { email, fullName, role, password: FIXTURE_PASSWORD, canCreateUsers }));
      out[key] = { id: row.id, email, apiKey: row.api_key, password: FIXTURE_PASSWORD, fullName, role };
    }
    const memberId = (out.member as TestUser).id;
    const bot = await s.db.transaction().execute((tx) =>
      doCreateUser(tx, env, { email: "helper-bot@example.com", fullName: "Helper Bot", role: ROLE.member, botType: 1, botOwnerId: memberId }),
    );
    out.bot = { id: bot.id, email: bot.delivery_email, apiKey: bot.api_key, password: "", fullName: bot.full_name, role: ROLE.member };
    return out as Fixtures;
  } finally {
    await s.close();
  }
}
