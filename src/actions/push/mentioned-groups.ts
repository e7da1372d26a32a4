/**
 * The group whose mention notified a user who was not mentioned by name (Zulip's
 * get_user_group_mentions_data): of the mentioned groups they are in, the smallest. A phone
 * notification names it, and a missed-message email says "@group was mentioned".
 */
import { mentionsIn } from "../../present/push-content.ts";
import { effectiveMemberIds } from "../../store/groups/group-membership.ts";
import { groupsByIds } from "../../store/groups/user-groups.ts";
import type { Db } from "../../store/schema/types.ts";

/** A mentioned group, with its members. */
export type MentionedGroup = { id: number; name: string; members: Set<number> };

/** Who a message's HTML mentions: users by name, and the groups, smallest first. */
export type MessageMentions = { personal: Set<number>; groups: MentionedGroup[] };

/** The users and groups the message's rendered HTML mentions (silent mentions do not count). */
export async function messageMentions(db: Db, realmId: number, html: string): Promise<MessageMentions> {
  const { userIds, groupIds } = mentionsIn(html);
  const rows = groupIds.length === 0 ? [] : await groupsByIds(db, realmId, groupIds);
  const groups: MentionedGroup[] = [];
  for (const row of rows) groups.push({ id: row.id, name: row.name ?? "", members: new Set(await effectiveMemberIds(db, row.id)) });
  groups.sort((a, b) => a.members.size - b.members.size || a.id - b.id);
  return { personal: userIds, groups };
}

/** The group that mentioned `userId`, when a group and not their name did; undefined otherwise. */
export function mentioningGroup(mentions: MessageMentions, userId: number): MentionedGroup | undefined {
  if (mentions.personal.has(userId)) return undefined;
  return mentions.groups.find((g) => g.members.has(userId));
}
