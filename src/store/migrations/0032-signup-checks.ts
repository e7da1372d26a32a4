/**
 * Issue 37, who may sign up: the organization's allowed email domains (Zulip's RealmDomain,
 * read on every register, so PostgreSQL notifies its commits to the read cache), and the link
 * from an emailed sign-up confirmation back to the reusable invitation link it came from.
 */
import type { Kysely, Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { createNotifyTriggers } from "./0024-table-notify.ts";
import { withId } from "./helpers.ts";

/** The tables this migration watches; test/store/read-cache.test.ts counts them with the other migrations'. */
export const SIGNUP_NOTIFYING_TABLES = ["realm_domains"] as const;

async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await withId(db.schema.createTable("realm_domains"), engine)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("domain", "text", (c) => c.notNull())
    .addColumn("allow_subdomains", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("realm_domains_realm_domain").on("realm_domains").columns(["realm_id", "domain"]).unique().execute();
  await db.schema.alterTable("invites").addColumn("multiuse_invite_id", "integer", (c) => c.references("invites.id")).execute();
  if (engine === "postgres") await createNotifyTriggers(db, SIGNUP_NOTIFYING_TABLES);
}

/** Migration 0032: realm_domains, invites.multiuse_invite_id. */
export function signupChecksMigration(engine: Engine): Migration {
  return { up: (db) => up(db, engine) };
}
