/** Bots: creating them (POST /bots), listing one's own, renaming or handing them over, new API keys. */
import { JsonableError } from "../../errors.ts";
import { isGuest, isRealmAdmin } from "../../permissions/check.ts";
import { ROLE } from "../../model/roles.ts";
import { apiEmail, emailDomain } from "../../model/emails.ts";
import { avatarUrl, presentBot } from "../../present/users.ts";
import { realmBotAddEvent, realmBotDeleteEvent, realmBotUpdateEvent } from "../../events/kinds/bots.ts";
import { realmUserUpdateEvent } from "../../events/kinds/users.ts";
import { randomAlphanumeric } from "../../secrets.ts";
import type { Db } from "../../store/schema/types.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import { activeNameTaken, getUser, getUserByDeliveryEmail, insertService, listBots, servicesByBot, updateUser } from "../../store/users/users.ts";
import { doCreateUser } from "./create.ts";
import { doRegenerateApiKey } from "./credentials.ts";
import { withTransaction, type ActionCtx, type AuthedCtx, type Emit } from "../context.ts";
import { checkFullName, emitUserAdded, isEmailAddress } from "./accounts.ts";
import { accessBotById, botAdministratorIds, userIdsWhoCanAccess } from "../../permissions/user-access.ts";
import { hasRealmPermission } from "../../permissions/check.ts";

/** Zulip's bot types. Embedded bots (4) are not offered. */
export const BOT_TYPES = { generic: 1, incomingWebhook: 2, outgoingWebhook: 3 } as const;
const VALID_BOT_TYPES: readonly number[] = Object.values(BOT_TYPES);
/** Outgoing-webhook payload formats: 1 Zulip's own, 2 Slack-compatible. */
const INTERFACE_TYPES = [1, 2];

/** What POST /bots accepts. */
type NewBot = { full_name: string; short_name: string; bot_type: number; payload_url: string; interface_type: number };

/** Zulip's require_member_or_admin: no guests, no bots. */
export function checkMemberOrAdmin(actor: UserRow): void {
  if (isGuest(actor)) throw new JsonableError("Not allowed for guest users");
  if (actor.is_bot === 1) throw new JsonableError("This endpoint does not accept bot requests.");
}

/** Refuses unless the actor may create (or reactivate) a bot of this type under the realm's bot policies. */
export async function checkCanCreateBot(ctx: AuthedCtx, botType: number): Promise<void> {
  if (await hasRealmPermission(ctx.db, ctx.realm, ctx.actor, "can_create_bots_group")) return;
  if (botType === BOT_TYPES.incomingWebhook && (await hasRealmPermission(ctx.db, ctx.realm, ctx.actor, "can_create_write_only_bots_group"))) return;
  throw new JsonableError("Insufficient permission");
}

/** The Bot object of one bot, with its services. */
async function botObject(db: Db, realm: RealmRow, bot: UserRow): Promise<Record<string, unknown>> {
  return presentBot(bot, (await servicesByBot(db, realm.id, [bot.id])).get(bot.id) ?? []);
}

/** Announces a new bot as POST /bots does: the user to everyone, its details to its administrators. */
export async function emitBotCreated(tx: Db, env: Pick<ActionCtx, "config" | "realm">, bot: UserRow, emit: Emit): Promise<void> {
  await emitUserAdded(tx, env, env.realm, bot, emit);
  emit(realmBotAddEvent(await botObject(tx, env.realm, bot)), await botAdministratorIds(tx, env.realm, bot));
}

/** POST /bots: creates a bot owned by the caller; announces it to all, and its details to its administrators. */
export async function createBot(ctx: AuthedCtx, input: NewBot): Promise<Record<string, unknown>> {
  checkMemberOrAdmin(ctx.actor);
  const shortName = input.short_name.trim();
  if (shortName === "") throw new JsonableError("Bad name or username");
  const fullName = checkFullName(input.full_name);
  const email = `${shortName}-bot@${emailDomain(ctx.config.externalUrl)}`;
  if (!isEmailAddress(email)) throw new JsonableError("Bad name or username");
  await checkCanCreateBot(ctx, input.bot_type);
  if (!VALID_BOT_TYPES.includes(input.bot_type)) throw new JsonableError("Invalid bot type");
  if (!INTERFACE_TYPES.includes(input.interface_type)) throw new JsonableError("Invalid interface type");
  return withTransaction(ctx, async (tx, emit) => {
    if (await getUserByDeliveryEmail(tx, ctx.realm.id, email)) throw new JsonableError("Username already in use");
    if (await activeNameTaken(tx, ctx.realm.id, fullName)) throw new JsonableError("Name is already in use.");
    const bot = await doCreateUser(tx, ctx, { email, fullName, role: ROLE.member, botType: input.bot_type, botOwnerId: ctx.actor.id });
    if (input.bot_type === BOT_TYPES.outgoingWebhook) {
      await insertService(tx, ctx.realm.id, { botUserId: bot.id, baseUrl: input.payload_url, token: randomAlphanumeric(32), interface: input.interface_type });
    }
    await emitBotCreated(tx, ctx, bot, emit);
    return {
      user_id: bot.id,
      api_key: bot.api_key,
      avatar_url: avatarUrl(bot),
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    };
  });
}

/** GET /bots: the caller's active bots, with their API keys. */
export async function getOwnBots(ctx: AuthedCtx): Promise<{ bots: Record<string, unknown>[] }> {
  checkMemberOrAdmin(ctx.actor);
  const bots = (await listBots(ctx.db, ctx.realm.id, ctx.actor.id)).filter((b) => b.is_active === 1);
  bots.sort((a, b) => a.date_joined - b.date_joined || a.id - b.id);
  const host = emailDomain(ctx.config.externalUrl);
  return {
    bots: bots.map((b) => ({
      username: apiEmail(b, host),
      full_name: b.full_name,
      api_key: b.api_key,
      avatar_url: avatarUrl(b),
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    })),
  };
}

/** Checks a new owner: an active human of the realm. */
async function checkNewOwner(ctx: AuthedCtx, ownerId: number): Promise<UserRow> {
  const owner = await getUser(ctx.db, ctx.realm.id, ownerId);
  if (!owner) throw new JsonableError("Failed to change owner, no such user");
  if (owner.is_active !== 1) throw new JsonableError("Failed to change owner, user is deactivated");
  if (owner.is_bot === 1) throw new JsonableError("Failed to change owner, bots can't own other bots");
  return owner;
}

/** PATCH /bots/{bot_id}: renames a bot and/or hands it to another owner. */
export async function updateBot(ctx: AuthedCtx, botId: number, changes: { full_name?: string; bot_owner_id?: number }): Promise<Record<string, unknown>> {
  checkMemberOrAdmin(ctx.actor);
  const bot = await accessBotById(ctx, botId);
  const fullName = changes.full_name !== undefined && changes.full_name !== bot.full_name ? checkFullName(changes.full_name) : null;
  const owner = changes.bot_owner_id === undefined ? null : await checkNewOwner(ctx, changes.bot_owner_id);
  const updated = await withTransaction(ctx, async (tx, emit) => {
    let row = bot;
    if (fullName !== null && fullName !== bot.full_name) {
      if (await activeNameTaken(tx, ctx.realm.id, fullName)) throw new JsonableError("Name is already in use.");
      row = await updateUser(tx, ctx.realm.id, bot.id, { full_name: fullName });
      emit(realmUserUpdateEvent(bot.id, { full_name: fullName }), await userIdsWhoCanAccess(tx, ctx.realm, row));
      emit(realmBotUpdateEvent(bot.id, { full_name: fullName }), await botAdministratorIds(tx, ctx.realm, row));
    }
    if (owner !== null && owner.id !== bot.bot_owner_id) {
      const previous = bot.bot_owner_id === null ? undefined : await getUser(tx, ctx.realm.id, bot.bot_owner_id);
      row = await updateUser(tx, ctx.realm.id, bot.id, { bot_owner_id: owner.id });
      if (previous && !isRealmAdmin(previous)) emit(realmBotDeleteEvent(bot.id), [previous.id]);
      if (!isRealmAdmin(owner)) emit(realmBotAddEvent(await botObject(tx, ctx.realm, row)), [owner.id]);
      emit(realmBotUpdateEvent(bot.id, { owner_id: owner.id }), await botAdministratorIds(tx, ctx.realm, row));
      emit(realmUserUpdateEvent(bot.id, { bot_owner_id: owner.id }), await userIdsWhoCanAccess(tx, ctx.realm, row));
    }
    return row;
  });
  const ownerRow = updated.bot_owner_id === null ? undefined : await getUser(ctx.db, ctx.realm.id, updated.bot_owner_id);
  return {
    full_name: updated.full_name,
    avatar_url: avatarUrl(updated),
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    ...(ownerRow ? { bot_owner: apiEmail(ownerRow, emailDomain(ctx.config.externalUrl)) } : {}),
  };
}

/** POST /bots/{bot_id}/api_key/regenerate: a new key for a bot the caller administers. */
export async function regenerateBotApiKey(ctx: AuthedCtx, botId: number): Promise<{ api_key: string }> {
  checkMemberOrAdmin(ctx.actor);
  const bot = await accessBotById(ctx, botId);
  return withTransaction(ctx, async (tx, emit) => {
    const apiKey = await doRegenerateApiKey(tx, ctx, bot);
    emit(realmBotUpdateEvent(bot.id, { api_key: apiKey }), await botAdministratorIds(tx, ctx.realm, bot));
    return { api_key: apiKey };
  });
}
