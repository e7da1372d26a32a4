/** The organization's allowed email domains (Zulip's RealmDomain), always within one realm. */
import { cachedRealmRows } from "../engine/read-cache.ts";
import type { RealmDomainRow } from "../schema/invites.ts";
import type { Db } from "../schema/types.ts";

/** The realm's allowed domains, by name (register reads them, and every check of a signing-up address). */
export const listRealmDomains = cachedRealmRows("realm domains", ["realm_domains"], (db, realmId): Promise<RealmDomainRow[]> =>
  db.selectFrom("realm_domains").selectAll().where("realm_id", "=", realmId).orderBy("domain").execute(),
);

/** Adds an allowed domain and returns its id; null when the realm has it already. */
export async function insertRealmDomain(db: Db, realmId: number, domain: string, allowSubdomains: boolean): Promise<number | null> {
  const rows = await db
    .insertInto("realm_domains")
    .values({ realm_id: realmId, domain, allow_subdomains: allowSubdomains ? 1 : 0 })
    .onConflict((oc) => oc.columns(["realm_id", "domain"]).doNothing())
    .returning("id")
    .execute();
  return rows[0]?.id ?? null;
}

/** Changes whether a domain's subdomains are allowed; false when the realm has no such domain. */
export async function updateRealmDomain(db: Db, realmId: number, domain: string, allowSubdomains: boolean): Promise<boolean> {
  const result = await db.updateTable("realm_domains").set({ allow_subdomains: allowSubdomains ? 1 : 0 }).where("realm_id", "=", realmId).where("domain", "=", domain).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Removes an allowed domain; false when the realm had no such domain. */
export async function deleteRealmDomain(db: Db, realmId: number, domain: string): Promise<boolean> {
  const result = await db.deleteFrom("realm_domains").where("realm_id", "=", realmId).where("domain", "=", domain).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
