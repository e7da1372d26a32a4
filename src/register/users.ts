/** The users' part of the register snapshot: realm_user, realm_bot and custom_profile_fields data. */
import type { SnapshotCtx } from "./provider.ts";
import { inaccessibleUserIds } from "../permissions/user-access.ts";
import { hasRealmPermission } from "../permissions/check.ts";
import { nowSeconds } from "../clock.ts";
import { isRealmAdmin } from "../permissions/check.ts";
import { realmSettings, type RealmGroupSetting } from "../permissions/realm-settings.ts";
import { ROLE } from "../model/roles.ts";
import { apiEmail, emailDomain } from "../model/emails.ts";
import {
  avatarUrl,
  CUSTOM_PROFILE_FIELD_TYPES,
  presentBot,
  presentProfileField,
  presentUnknownUser,
  presentUser,
  profileDataOf,
} from "../present/users.ts";
import { listProfileFields, realmProfileValues } from "../store/realm/custom-profile.ts";
import type { UserRow } from "../store/schema/database.ts";
import { listBots, listUsers, servicesByBot } from "../store/users/users.ts";
import type { QueueOptions } from "../events/queue-options.ts";
import { readWanted, type StateProvider } from "./provider.ts";

/** realm_users / realm_non_active_users as this queue's user sees them. */
async function userLists(ctx: SnapshotCtx, opts: QueueOptions): Promise<Record<string, unknown>> {
  const host = emailDomain(ctx.config.externalUrl);
  const users = await listUsers(ctx.db, ctx.realm.id);
  const hidden = await inaccessibleUserIds(ctx.db, ctx.realm, ctx.actor, users);
  const values = await realmProfileValues(ctx.db, ctx.realm.id);
  const active: Record<string, unknown>[] = [];
  const inactive: Record<string, unknown>[] = [];
  for (const u of users) {
    if (hidden.has(u.id)) {
      // Clients declaring user_list_incomplete get no entry; others an "Unknown user" placeholder.
      if (!opts.capabilities.user_list_incomplete) {
        active.push(presentUnknownUser(u.id, { host, externalUrl: ctx.config.externalUrl, nowSeconds: nowSeconds(ctx.clock), includeIsActive: false }));
      }
      continue;
    }
    const person = presentUser(u, {
      viewer: ctx.actor,
      host,
      clientGravatar: opts.client_gravatar,
      // With user_avatar_url_field_optional the server may omit avatars; it does for deactivated users.
      includeAvatarUrl: !(opts.capabilities.user_avatar_url_field_optional && u.is_active !== 1),
      profileData: profileDataOf(values.get(u.id) ?? []),
      includeIsActive: false,
    });
    (u.is_active === 1 ? active : inactive).push(person);
  }
  return { realm_users: active, realm_non_active_users: inactive, cross_realm_bots: [] };
}

/** The own-account fields /register lists under realm_user. */
async function ownFields(ctx: SnapshotCtx, me: UserRow): Promise<Record<string, unknown>> {
  const settings = realmSettings(ctx.realm);
  const can = (setting: RealmGroupSetting) => hasRealmPermission(ctx.db, ctx.realm, me, setting);
  const canPublic = await can("can_create_public_channel_group");
  const canPrivate = await can("can_create_private_channel_group");
  return {
    user_id: me.id,
    email: apiEmail(me, emailDomain(ctx.config.externalUrl)),
    delivery_email: me.delivery_email,
    full_name: me.full_name,
    is_admin: isRealmAdmin(me),
    is_owner: me.role === ROLE.owner,
    is_moderator: me.role === ROLE.moderator,
    is_guest: me.role === ROLE.guest,
    is_billing_admin: me.is_billing_admin === 1,
    avatar_source: me.avatar_source,
    avatar_url: avatarUrl(me),
    avatar_url_medium: avatarUrl(me, true),
    can_create_streams: canPublic || canPrivate,
    can_create_public_streams: canPublic,
    can_create_private_streams: canPrivate,
    can_create_web_public_streams: settings.enable_spectator_access && (await can("can_create_web_public_channel_group")),
    can_subscribe_other_users: await can("can_add_subscribers_group"),
    can_invite_others_to_realm: await can("can_invite_users_group"),
  };
}

/** realm_bots: every bot for administrators, else the caller's own bots. */
async function realmBots(ctx: SnapshotCtx): Promise<Record<string, unknown>[]> {
  if (ctx.actor === null) return [];
  const bots = await listBots(ctx.db, ctx.realm.id, isRealmAdmin(ctx.actor) ? null : ctx.actor.id);
  const services = await servicesByBot(ctx.db, ctx.realm.id, bots.map((b) => b.id));
  return bots.map((b) => presentBot(b, services.get(b.id) ?? []));
}

/** Snapshot builder for users, bots and custom profile fields. */
export const usersState: StateProvider = {
  async fetch(ctx, opts, want) {
    const actor = ctx.actor;
    const [lists, own, keys] = await Promise.all([
      want("realm_user") ? userLists(ctx, opts) : {},
      want("realm_user") && actor !== null ? ownFields(ctx, actor) : {},
      readWanted({
        realm_bots: want("realm_bot") && (() => realmBots(ctx)),
        custom_profile_fields: want("custom_profile_fields") && (async () => (await listProfileFields(ctx.db, ctx.realm.id)).map(presentProfileField)),
      }),
    ]);
    const out: Record<string, unknown> = { ...lists, ...own, ...keys };
    if (want("custom_profile_fields")) out.custom_profile_field_types = CUSTOM_PROFILE_FIELD_TYPES;
    return out;
  },
};
