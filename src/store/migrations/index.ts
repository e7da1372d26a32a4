/** The ordered list of migrations; each takes the engine so it can pick column types. */
import type { Migration } from "kysely";
import type { Engine } from "../types.ts";
import { foundation } from "./0001-foundation.ts";
import { messagesMigration } from "./0002-messages.ts";
import { organizationMigration } from "./0003-organization.ts";
import { subscriptionPeriodsBackfill } from "./0004-subscription-periods.ts";
import { searchTokensMigration } from "./0005-search-tokens.ts";
import { readIndexesMigration } from "./0006-read-indexes.ts";

/** All migrations by name; names sort in the order they run. */
export function migrations(engine: Engine): Record<string, Migration> {
  return {
    "0001-foundation": foundation(engine),
    "0002-messages": messagesMigration(engine),
    "0003-organization": organizationMigration(engine),
    "0004-subscription-periods": subscriptionPeriodsBackfill(),
    "0005-search-tokens": searchTokensMigration(engine),
    "0006-read-indexes": readIndexesMigration(),
  };
}
