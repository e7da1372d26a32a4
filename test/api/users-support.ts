/** Helpers shared by the users and bots suites: direct store set-up, reading users back. */
import { doSetUserFlagSetting, CAN_CHANGE_USER_EMAILS } from "../../src/actions/users/credentials.ts";
import { createProfileField, type NewProfileField } from "../../src/store/realm/custom-profile.ts";
import { openStore } from "../../src/store/db.ts";
import type { CustomProfileFieldRow } from "../../src/store/schema/database.ts";
import { getRealm } from "../../src/store/realm/realms.ts";
import { getUser } from "../../src/store/users/users.ts";
import { expectSuccess } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import type { TestServer } from "../helpers/server.ts";

/** Runs `fn` on the suite's store, opened directly (for set-up no endpoint offers yet). */
export function withStore<T>(server: TestServer, fn: (db: ReturnType<typeof openStore>["db"]) => Promise<T>): Promise<T> {
  return withDb(server, fn);
}

/** Adds a custom profile field to the fixture realm. */
export function addProfileField(server: TestServer, field: NewProfileField): Promise<CustomProfileFieldRow> {
  return withStore(server, (db) => createProfileField(db, server.fixtures.realmId, field));
}

/** Grants (or revokes) the can_change_user_emails special permission, as the CLI will. */
export function setCanChangeUserEmails(server: TestServer, userId: number, value: boolean): Promise<void> {
  return withStore(server, async (db) => {
    const realm = await getRealm(db, server.fixtures.realmId);
    const user = await getUser(db, server.fixtures.realmId, userId);
    if (!realm || !user) throw new Error(`no user ${userId}`);
    await doSetUserFlagSetting(db, { realm }, user, CAN_CHANGE_USER_EMAILS, value);
  });
}

/** A user as the owner reads it through GET /users/{id} (with profile data). */
export async function readUser(server: TestServer, userId: number): Promise<Record<string, unknown>> {
  const body = expectSuccess(await server.api.get(server.fixtures.owner, `/users/${userId}`, { include_custom_profile_fields: true }));
  return body.user;
}
