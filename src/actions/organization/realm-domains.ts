/**
 * The organization's allowed email domains (Zulip's zerver/views/realm_domains.py): everyone may
 * list them; owners add, change and remove them, and every active user hears of it. With
 * emails_restricted_to_domains on, only addresses at these domains may join
 * (actions/users/email-rules.ts).
 */
import { JsonableError, OwnerRequiredError } from "../../errors.ts";
import { realmUpdateEvent } from "../../events/kinds/organization.ts";
import { realmDomainEvent, realmDomainRemovedEvent } from "../../events/kinds/realm-domains.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { presentRealmDomain, type ApiRealmDomain } from "../../present/organization.ts";
import { deleteRealmDomain, insertRealmDomain, listRealmDomains, updateRealmDomain } from "../../store/realm/realm-domains.ts";
import { lockRealm, updateRealmSettings } from "../../store/realm/realms.ts";
import { ROLE } from "../../model/roles.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";

/** Zulip's cap on a domain's length. */
const DOMAIN_MAX_LENGTH = 255;

/** Upstream's realm domain views need an owner (require_realm_owner). */
function checkOwner(ctx: AuthedCtx): void {
  if (ctx.actor.role !== ROLE.owner) throw new OwnerRequiredError();
}

/** Why a (lower-cased) domain is refused, in Zulip's words (zerver/lib/domains.py), or null when it is fine. */
export function domainProblem(domain: string): string | null {
  if (domain === "") return "Domain can't be empty.";
  if (!domain.includes(".")) return "Domain must have at least one dot (.)";
  if (domain.length > DOMAIN_MAX_LENGTH) return "Domain is too long";
  if (domain.startsWith(".") || domain.endsWith(".")) return "Domain cannot start or end with a dot (.)";
  for (const label of domain.split(".")) {
    if (label === "") return "Consecutive '.' are not allowed.";
    if (label.startsWith("-") || label.endsWith("-")) return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(label)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return null;
}

/** GET /realm/domains: the realm's allowed domains, for any member. */
export async function getRealmDomains(ctx: AuthedCtx): Promise<{ domains: ApiRealmDomain[] }> {
  return { domains: (await listRealmDomains(ctx.db, ctx.realm.id)).map(presentRealmDomain) };
}

/** POST /realm/domains: adds a domain (trimmed, lower-cased); answers Zulip's `new_domain`: [id, domain]. */
export async function addRealmDomain(ctx: AuthedCtx, input: { domain: string; allow_subdomains: boolean }): Promise<{ new_domain: [number, string] }> {
  checkOwner(ctx);
  const domain = input.domain.trim().toLowerCase();
  const problem = domainProblem(domain);
  if (problem !== null) throw new JsonableError(`Invalid domain: ${problem}`);
  return withTransaction(ctx, async (tx, emit) => {
    const id = await insertRealmDomain(tx, ctx.realm.id, domain, input.allow_subdomains);
    if (id === null) throw new JsonableError(`The domain ${domain} is already a part of your organization.`);
    emit(realmDomainEvent("add", { domain, allow_subdomains: input.allow_subdomains }), await activeUserIds(tx, ctx.realm.id));
    return { new_domain: [id, domain] };
  });
}

/** PATCH /realm/domains/{domain}: whether the domain's subdomains are allowed too. */
export async function changeRealmDomain(ctx: AuthedCtx, domain: string, input: { allow_subdomains: boolean }): Promise<Record<string, never>> {
  checkOwner(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    if (!(await updateRealmDomain(tx, ctx.realm.id, domain, input.allow_subdomains))) throw new JsonableError(`No entry found for domain ${domain}.`);
    emit(realmDomainEvent("change", { domain, allow_subdomains: input.allow_subdomains }), await activeUserIds(tx, ctx.realm.id));
  });
  return {};
}

/**
 * DELETE /realm/domains/{domain}: removes the domain. Removing the last one turns
 * emails_restricted_to_domains off, as upstream does: a restriction to no domain would refuse
 * every new address.
 */
export async function removeRealmDomain(ctx: AuthedCtx, domain: string): Promise<Record<string, never>> {
  checkOwner(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    if (!(await deleteRealmDomain(tx, ctx.realm.id, domain))) throw new JsonableError(`No entry found for domain ${domain}.`);
    const everyone = await activeUserIds(tx, ctx.realm.id);
    const realm = await lockRealm(tx, ctx.realm.id);
    if (realmSettings(realm).emails_restricted_to_domains && (await listRealmDomains(tx, ctx.realm.id)).length === 0) {
      // false is the setting's default, which the stored settings leave out.
      const { emails_restricted_to_domains: _dropped, ...rest } = JSON.parse(realm.settings) as Record<string, unknown>;
      await updateRealmSettings(tx, realm.id, rest);
      emit(realmUpdateEvent("emails_restricted_to_domains", false), everyone);
    }
    emit(realmDomainRemovedEvent(domain), everyone);
  });
  return {};
}
