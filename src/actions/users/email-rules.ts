/**
 * Which addresses may join the organization (Zulip's zerver/lib/email_validation.py,
 * get_realm_email_validator): with emails_restricted_to_domains, only addresses at its allowed
 * domains (store/realm/realm-domains.ts), and none with a "+" before the "@"; otherwise, with
 * disallow_disposable_email_addresses, none at a disposable-address provider. Each caller words
 * the refusal as upstream does at that place.
 */
import { realmSettings } from "../../permissions/realm-settings.ts";
import { listRealmDomains } from "../../store/realm/realm-domains.ts";
import type { RealmRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";

/** Why an address may not join: outside the allowed domains, at a disposable provider, or holding a "+". */
export type EmailRefusal = "outside_domains" | "disposable" | "plus";

/** Upstream's words for a refused address in a list of addresses (an invitation's errors, an email change: validate_email_is_valid). */
export const ADDRESS_REFUSALS: Readonly<Record<EmailRefusal, string>> = {
  outside_domains: "Outside your domain.",
  disposable: "Please use your real email address.",
  plus: "Email addresses containing + are not allowed.",
};

/** Checks one address (already known to have an address's shape); null when it may join. */
export type EmailRule = (email: string) => EmailRefusal | null;

/** Domains upstream accepts although the list names them (name_restrictions.py's override list). */
const NOT_DISPOSABLE: ReadonlySet<string> = new Set(["airsi.de", "opayq.com", "abinemail.com", "blurmail.net", "maskmemail.com"]);

let disposableDomains: Promise<ReadonlySet<string>> | null = null;

/**
 * The disposable-address domains of disposable-email-domains-js (the list upstream uses, from the
 * disposable-email-domains project), loaded once when first needed: ~9,000 names that most
 * processes never consult.
 */
function loadDisposableDomains(): Promise<ReadonlySet<string>> {
  disposableDomains ??= import("disposable-email-domains-js").then((m) => m.disposableEmailBlocklistSet());
  return disposableDomains;
}

/** The part after the last "@", lower-cased. */
function domainOf(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).toLowerCase();
}

/** The realm's rule for new addresses; reads the allowed domains once, for checking many addresses. */
export async function realmEmailRule(db: Db, realm: RealmRow): Promise<EmailRule> {
  const settings = realmSettings(realm);
  if (!settings.emails_restricted_to_domains) {
    if (!settings.disallow_disposable_email_addresses) return () => null;
    const disposable = await loadDisposableDomains();
    return (email) => {
      const domain = domainOf(email);
      return disposable.has(domain) && !NOT_DISPOSABLE.has(domain) ? "disposable" : null;
    };
  }
  // Restricted to a few chosen domains, there is no need to look for disposable ones.
  const rows = await listRealmDomains(db, realm.id);
  const exact = new Set(rows.map((r) => r.domain));
  const withSubdomains = new Set(rows.filter((r) => r.allow_subdomains === 1).map((r) => r.domain));
  return (email) => {
    if (email.slice(0, email.lastIndexOf("@")).includes("+")) return "plus";
    let domain = domainOf(email);
    if (exact.has(domain)) return null;
    // a.b.example.com is allowed by b.example.com or example.com when they allow subdomains.
    for (let dot = domain.indexOf("."); dot !== -1; dot = domain.indexOf(".")) {
      domain = domain.slice(dot + 1);
      if (withSubdomains.has(domain)) return null;
    }
    return "outside_domains";
  };
}
