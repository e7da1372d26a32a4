/** The unauthenticated server description (GET /server_settings). */
import type { ActionCtx } from "../context.ts";
import { FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../../version.ts";

/** Server and default-realm facts for clients choosing how to log in. */
export async function serverSettings(ctx: ActionCtx): Promise<Record<string, unknown>> {
  const url = ctx.config.externalUrl;
  return {
    authentication_methods: {
      password: true, dev: false, email: true, ldap: false, remoteuser: false,
      github: false, azuread: false, gitlab: false, apple: false, google: false, saml: false, "openid connect": false,
    },
    external_authentication_methods: [],
    zulip_feature_level: FEATURE_LEVEL,
    zulip_version: ZULIP_VERSION,
    zulip_merge_base: ZULIP_MERGE_BASE,
    push_notifications_enabled: ctx.config.pushRelay !== null,
    is_incompatible: false,
    email_auth_enabled: true,
    require_email_format_usernames: true,
    realm_uri: url,
    realm_url: url,
    realm_name: ctx.realm.name,
    realm_icon: `${url}/static/images/logo/zulip-icon-128x128.png`,
    realm_description: ctx.realm.description,
    realm_web_public_access_enabled: false,
  };
}
