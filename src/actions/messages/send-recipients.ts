/**
 * Who a new message goes to: the `to` parameter decoded as Zulip does (channel name or id;
 * user ids or emails, JSON or comma-separated), the channel or users resolved, and the posting
 * and direct-message permissions checked (Zulip's check_message addressing half).
 */
import { JsonableError, StreamDoesNotExistError, StreamWithIdDoesNotExistError } from "../../errors.ts";
import { isUserInGroup } from "../../store/groups/group-membership.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { SYSTEM_GROUP } from "../../model/roles.ts";
import { isGuest } from "../../permissions/check.ts";
import { apiEmail, emailDomain } from "../../model/emails.ts";
import type { Db } from "../../store/schema/types.ts";
import { conversationHasMessages, findDirectConversation } from "../../store/messages/messages.ts";
import type { StreamRow, UserRow } from "../../store/schema/database.ts";
import { getStreamById, getStreamByName } from "../../store/channels/streams.ts";
import { getSubscription } from "../../store/channels/subscriptions.ts";
import { getGroup } from "../../store/groups/user-groups.ts";
import { getUser, usersByIdsOrEmails } from "../../store/users/users.ts";
import type { AuthedCtx } from "../context.ts";
import { inaccessibleUserIds } from "../../permissions/user-access.ts";

/** What a channel `to` names: a channel name or id. */
export function parseStreamIndicator(raw: string): string | number {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (Array.isArray(data)) {
    if (data.length !== 1) throw new JsonableError("Expected exactly one channel");
    data = data[0];
  }
  if (typeof data === "string") return data;
  if (typeof data === "number" && Number.isInteger(data)) return data;
  throw new JsonableError("Invalid data type for channel");
}

/** What a direct-message `to` names: user ids or emails (JSON list, or a comma-separated string). */
export function parseDirectRecipients(raw: string): string[] | number[] {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    data = raw;
  }
  if (typeof data === "string") data = data.split(",");
  if (!Array.isArray(data)) throw new JsonableError("Invalid data type for recipients");
  if (data.length === 0) return [];
  const mixed = () => new JsonableError("Recipient lists may contain emails or user IDs, but not both.");
  if (typeof data[0] === "string") {
    if (!data.every((e): e is string => typeof e === "string")) throw mixed();
    return [...new Set(data.map((e) => e.trim()))].filter((e) => e !== "");
  }
  if (typeof data[0] !== "number" || !Number.isInteger(data[0])) throw new JsonableError("Invalid data type for recipients");
  if (!data.every((id): id is number => typeof id === "number" && Number.isInteger(id))) throw mixed();
  return [...new Set(data)];
}

/** A name's HTML-escaped form, as Zulip echoes unknown channel names. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
}

/** The channel a channel message goes to (missing channels: STREAM_DOES_NOT_EXIST). */
export async function resolveStream(ctx: AuthedCtx, db: Db, indicator: string | number): Promise<StreamRow> {
  if (typeof indicator === "number") {
    const stream = await getStreamById(db, ctx.realm.id, indicator);
    if (!stream) throw new StreamWithIdDoesNotExistError(indicator);
    return stream;
  }
  const name = indicator.trim();
  const stream = name === "" ? undefined : await getStreamByName(db, ctx.realm.id, name);
  if (!stream) throw new StreamDoesNotExistError(escapeHtml(name));
  return stream;
}

async function inSendGroup(db: Db, user: UserRow, stream: StreamRow): Promise<boolean> {
  return isUserInGroup(db, stream.can_send_message_group_id, user.id);
}

async function subscribed(db: Db, realmId: number, user: UserRow, streamId: number): Promise<boolean> {
  return (await getSubscription(db, realmId, user.id, streamId))?.active === 1;
}

/** Zulip's access_stream_for_send_message: who may post, archived channels, private channels. */
export async function checkCanPost(ctx: AuthedCtx, db: Db, stream: StreamRow): Promise<void> {
  const sender = ctx.actor;
  const owner = sender.is_bot === 1 && sender.bot_owner_id !== null ? await getUser(db, ctx.realm.id, sender.bot_owner_id) : undefined;
  // A bot may post where its owner may (can_send_message_group).
  if (!(await inSendGroup(db, sender, stream)) && !(owner && (await inSendGroup(db, owner, stream)))) {
    throw new JsonableError("You do not have permission to post in this channel.");
  }
  const refused = () => new JsonableError(`Not authorized to send to channel '${stream.name}'`);
  if (stream.is_archived === 1) throw refused();
  if (stream.is_web_public === 1) return;
  if (stream.invite_only === 0 && !isGuest(sender)) return;
  if (await subscribed(db, ctx.realm.id, sender, stream.id)) return;
  if (owner && (await subscribed(db, ctx.realm.id, owner, stream.id))) return;
  throw refused();
}

/** The realm's users named by ids or API emails (real addresses only where visible to everyone, else `user{id}@host`). */
async function usersNamed(ctx: AuthedCtx, db: Db, to: string[] | number[], host: string): Promise<UserRow[]> {
  const dummy = new RegExp(`^user(\\d+)@${host.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "i");
  const ids = to.map((key) => (typeof key === "number" ? key : Number(dummy.exec(key)?.[1] ?? NaN))).filter((id) => Number.isInteger(id));
  const emails = to.flatMap((key) => (typeof key === "string" ? [key.toLowerCase()] : []));
  return usersByIdsOrEmails(db, ctx.realm.id, ids, emails);
}

/** The users a direct message names, checked as Zulip does (unknown, deactivated, inaccessible). */
export async function resolveDirectUsers(ctx: AuthedCtx, db: Db, to: string[] | number[]): Promise<UserRow[]> {
  if (to.length === 0) throw new JsonableError("Message must have recipients");
  const host = emailDomain(ctx.config.externalUrl);
  const candidates = await usersNamed(ctx, db, to, host);
  const users: UserRow[] = [];
  for (const key of to) {
    const user =
      typeof key === "number"
        ? candidates.find((u) => u.id === key)
        : candidates.find((u) => apiEmail(u, host).toLowerCase() === key.toLowerCase());
    if (!user) throw new JsonableError(typeof key === "number" ? `Invalid user ID ${key}` : `Invalid email '${key}'`);
    users.push(user);
  }
  for (const user of users) {
    if (user.is_active === 0) throw new JsonableError(`'${apiEmail(user, host)}' is no longer using Zulip.`);
  }
  if ((await inaccessibleUserIds(db, ctx.realm, ctx.actor, users)).size > 0) {
    throw new JsonableError("You do not have permission to access some of the recipients.");
  }
  return users;
}

/** Whether any of the users is in the group (system groups by role would give the same answer). */
async function anyInGroup(db: Db, groupId: number, userIds: number[]): Promise<boolean> {
  for (const id of userIds) if (await isUserInGroup(db, groupId, id)) return true;
  return false;
}

/**
 * Zulip's check_can_send_direct_message: bots and conversations with only bots and oneself are
 * free; otherwise someone in the conversation must be in direct_message_permission_group, and a
 * sender outside direct_message_initiator_group may only continue an existing conversation.
 */
export async function checkCanSendDirect(ctx: AuthedCtx, db: Db, recipients: UserRow[], memberIds: number[]): Promise<void> {
  const sender = ctx.actor;
  if (sender.is_bot === 1) return;
  if (recipients.every((u) => u.is_bot === 1 || u.id === sender.id)) return;
  const settings = realmSettings(ctx.realm);
  const permission = settings.direct_message_permission_group;
  if (!(await anyInGroup(db, permission, [...new Set([...recipients.map((u) => u.id), sender.id])]))) {
    const group = await getGroup(db, ctx.realm.id, permission);
    const nobody = group?.name === SYSTEM_GROUP.nobody;
    throw new JsonableError(nobody ? "Direct messages are disabled in this organization." : "This conversation does not include any users who can authorize it.");
  }
  if (await isUserInGroup(db, settings.direct_message_initiator_group, sender.id)) return;
  const existing = await findDirectConversation(db, ctx.realm.id, memberIds);
  if (!existing || !(await conversationHasMessages(db, ctx.realm.id, existing.recipientId))) {
    throw new JsonableError("You do not have permission to initiate direct message conversations.");
  }
}
