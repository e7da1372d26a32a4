/**
 * Loads what rendering one message may consult, for its sender: the users, groups and channels
 * its content names (only those), with the sender's permissions applied, and the realm's options.
 */
import { mentionCandidates, renderMessage, topicKey, type RenderContext, type RenderResult } from "../../markdown/render.ts";
import { isUserInGroup } from "../../store/groups/group-membership.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { hasContentAccess } from "../../permissions/stream-access.ts";
import { userSetting } from "../../model/user-settings.ts";
import type { Db } from "../../store/schema/types.ts";
import { topicMaxMessageId } from "../../store/messages/messages.ts";
import type { UserRow } from "../../store/schema/database.ts";
import { streamsByNames } from "../../store/channels/streams.ts";
import { subscribedStreamIds } from "../../store/channels/subscriptions.ts";
import { groupsByNames } from "../../store/groups/user-groups.ts";
import { usersByNamesOrIds } from "../../store/users/users.ts";
import { listLinkifiers } from "../../store/realm/linkifiers.ts";
import type { ActionCtx } from "../context.ts";
import { renderableRealmEmoji } from "../emoji/realm-emoji.ts";

async function mentionUsers(db: Db, realmId: number, names: string[], ids: number[]): Promise<RenderContext["users"]> {
  if (names.length === 0 && ids.length === 0) return [];
  const rows = await usersByNamesOrIds(db, realmId, names.map((n) => n.toLowerCase()), ids);
  return rows.map((r) => ({ id: r.id, full_name: r.full_name, email: r.delivery_email, is_active: r.is_active === 1 }));
}

async function mentionGroups(db: Db, realmId: number, sender: UserRow, names: string[]): Promise<RenderContext["groups"]> {
  if (names.length === 0) return [];
  const rows = await groupsByNames(db, realmId, names);
  const out = [];
  for (const row of rows) {
    if (row.name === null) continue;
    const canMention = row.can_mention_group_id !== null && (await isUserInGroup(db, row.can_mention_group_id, sender.id));
    out.push({ id: row.id, name: row.name, deactivated: row.deactivated === 1, can_mention: canMention });
  }
  return out;
}

async function linkChannels(db: Db, realmId: number, sender: UserRow, names: string[]): Promise<NonNullable<RenderContext["channels"]>> {
  if (names.length === 0) return [];
  const rows = await streamsByNames(db, realmId, names);
  const subscribed = await subscribedStreamIds(db, realmId, sender.id);
  const out = [];
  for (const stream of rows) if (await hasContentAccess(db, sender, stream, subscribed.has(stream.id))) out.push({ id: stream.id, name: stream.name });
  return out;
}

/** Latest message id of each linked topic, for `/with/` links. */
async function topicMessageIds(db: Db, realmId: number, channels: NonNullable<RenderContext["channels"]>, topics: Array<{ channelName: string; topic: string }>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const { channelName, topic } of topics) {
    const channel = channels.find((c) => c.name === channelName);
    if (!channel) continue;
    const maxId = await topicMaxMessageId(db, realmId, channel.id, topic);
    if (maxId !== null) out.set(topicKey(channel.id, topic), maxId);
  }
  return out;
}

/** The render context for `content` sent by `sender`. */
export async function loadRenderContext(ctx: ActionCtx, db: Db, sender: UserRow, content: string): Promise<RenderContext> {
  const wanted = mentionCandidates(content);
  const realmId = ctx.realm.id;
  const [users, groups, channels, linkifiers, realmEmoji] = await Promise.all([
    mentionUsers(db, realmId, wanted.userNames, wanted.userIds),
    mentionGroups(db, realmId, sender, wanted.groupNames),
    linkChannels(db, realmId, sender, wanted.channelNames),
    listLinkifiers(db, realmId),
    // Custom emoji are written `:name:`; content without a colon cannot use one.
    content.includes(":") ? renderableRealmEmoji(db, realmId) : [],
  ]);
  const settings = realmSettings(ctx.realm);
  return {
    realmUrl: ctx.config.externalUrl,
    users,
    groups,
    channels,
    linkifiers,
    realmEmoji,
    topicMessageIds: await topicMessageIds(db, realmId, channels, wanted.topics),
    translateEmoticons: userSetting(sender, "translate_emoticons") === true,
    defaultCodeBlockLanguage: settings.default_code_block_language,
    highlightMaxChars: ctx.config.highlightMaxChars,
  };
}

/** Renders `content` as `sender` would send it. */
export async function renderForSender(ctx: ActionCtx, db: Db, sender: UserRow, content: string): Promise<RenderResult> {
  return renderMessage(content, await loadRenderContext(ctx, db, sender, content));
}
