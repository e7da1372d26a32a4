/** API shapes of organization configuration: user statuses, code playgrounds, linkifiers and allowed email domains. */
import type { Selectable } from "kysely";
import type { RealmDomainRow } from "../store/schema/invites.ts";
import type { LinkifierTable, RealmPlaygroundTable, UserStatusTable } from "../store/schema/database.ts";

/** SPEC.md's user status object; every key optional (an empty object when nothing is set). */
export type ApiUserStatus = {
  away?: true;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
};

/** A code playground as clients read it. */
export type ApiPlayground = { id: number; name: string; pygments_language: string; url_template: string };

/** A linkifier as clients read it. */
export type ApiLinkifier = { id: number; pattern: string; url_template: string };

/**
 * A stored status in the API shape (Zulip's format_user_status): `away` only when the user has
 * presence disabled (FL 148: away = !presence_enabled), emoji keys only with an emoji.
 */
export function presentUserStatus(row: Pick<Selectable<UserStatusTable>, "status_text" | "emoji_name" | "emoji_code" | "reaction_type">, presenceEnabled: boolean): ApiUserStatus {
  const out: ApiUserStatus = {};
  if (!presenceEnabled) out.away = true;
  if (row.status_text !== "") out.status_text = row.status_text;
  if (row.emoji_name !== "") Object.assign(out, { emoji_name: row.emoji_name, emoji_code: row.emoji_code, reaction_type: row.reaction_type });
  return out;
}

/** A playground row in the API shape. */
export function presentPlayground(row: Selectable<RealmPlaygroundTable>): ApiPlayground {
  return { id: row.id, name: row.name, pygments_language: row.pygments_language, url_template: row.url_template };
}

/** A linkifier row in the API shape. */
export function presentLinkifier(row: Selectable<LinkifierTable>): ApiLinkifier {
  return { id: row.id, pattern: row.pattern, url_template: row.url_template };
}

/** An allowed email domain as the API shows it (Zulip's RealmDomainDict). */
export type ApiRealmDomain = { domain: string; allow_subdomains: boolean };

/** A stored allowed domain as the API shows it. */
export function presentRealmDomain(row: Pick<RealmDomainRow, "domain" | "allow_subdomains">): ApiRealmDomain {
  return { domain: row.domain, allow_subdomains: row.allow_subdomains === 1 };
}
