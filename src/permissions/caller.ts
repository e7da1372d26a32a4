/**
 * Who is asking, in which organization, and the database to read: the part of an action's
 * context that permission checks (and the register snapshot) read. Actions pass their context.
 */
import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import type { Database, RealmRow, UserRow } from "../store/schema/database.ts";

/** Who asks, in which realm, with the database to read. */
export type Caller = {
  db: Kysely<Database>;
  config: Config;
  realm: RealmRow;
  /** The authenticated user, or null for unauthenticated (public-access) requests. */
  actor: UserRow | null;
};

/** A caller known to be authenticated. */
export type AuthedCaller = Caller & { actor: UserRow };
