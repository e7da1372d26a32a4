/** `realm_domains`: the organization's allowed email domains changed (sent to every active user). */
import type { ApiRealmDomain } from "../../present/organization.ts";

/** A domain was added, or its allow_subdomains changed. */
export type RealmDomainsChangeEvent = { type: "realm_domains"; op: "add" | "change"; realm_domain: ApiRealmDomain };
/** A domain was removed. */
export type RealmDomainsRemoveEvent = { type: "realm_domains"; op: "remove"; domain: string };
export type RealmDomainsEvent = RealmDomainsChangeEvent | RealmDomainsRemoveEvent;

/** The event of a domain added (`add`) or changed (`change`). */
export function realmDomainEvent(op: "add" | "change", domain: ApiRealmDomain): RealmDomainsChangeEvent {
  return { type: "realm_domains", op, realm_domain: domain };
}

/** The event of a domain removed. */
export function realmDomainRemovedEvent(domain: string): RealmDomainsRemoveEvent {
  return { type: "realm_domains", op: "remove", domain };
}
