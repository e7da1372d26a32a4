/** The register snapshot's organization configuration and statuses: user_status, realm_playgrounds, realm_linkifiers, realm_domains. */
import { inaccessibleUserIds } from "../permissions/user-access.ts";
import { presentLinkifier, presentPlayground, presentRealmDomain, presentUserStatus, type ApiUserStatus } from "../present/organization.ts";
import { listLinkifiers } from "../store/realm/linkifiers.ts";
import { listPlaygrounds } from "../store/realm/playgrounds.ts";
import { listRealmDomains } from "../store/realm/realm-domains.ts";
import { listShownStatuses, presenceEnabled } from "../store/users/user-status.ts";
import { listUsers } from "../store/users/users.ts";
import type { SnapshotCtx } from "./provider.ts";
import type { StateProvider } from "./provider.ts";

/** Statuses of the active users the viewer may access, keyed by user id; users with nothing set are left out. */
async function userStatuses(ctx: SnapshotCtx): Promise<Record<string, ApiUserStatus>> {
  const hidden = await inaccessibleUserIds(ctx.db, ctx.realm, ctx.actor, await listUsers(ctx.db, ctx.realm.id));
  const out: Record<string, ApiUserStatus> = {};
  for (const row of await listShownStatuses(ctx.db, ctx.realm.id)) {
    if (hidden.has(row.user_id)) continue;
    const status = presentUserStatus(row, presenceEnabled(row));
    if (Object.keys(status).length > 0) out[String(row.user_id)] = status;
  }
  return out;
}

/** Snapshot builder for user statuses, code playgrounds, linkifiers and allowed email domains. */
export const organizationState: StateProvider = {
  async fetch(ctx, opts, want) {
    const out: Record<string, unknown> = {};
    if (want("user_status")) out.user_status = await userStatuses(ctx);
    if (want("realm_playgrounds")) out.realm_playgrounds = (await listPlaygrounds(ctx.db, ctx.realm.id)).map(presentPlayground);
    if (want("realm_linkifiers")) {
      // linkifier_url_template (FL 176): clients that cannot expand templates get no linkifiers.
      const linkifiers = opts.capabilities.linkifier_url_template ? await listLinkifiers(ctx.db, ctx.realm.id) : [];
      out.realm_linkifiers = linkifiers.map(presentLinkifier);
    }
    if (want("realm_domains")) out.realm_domains = (await listRealmDomains(ctx.db, ctx.realm.id)).map(presentRealmDomain);
    return out;
  },
};
