/**
 * The lines of a Mattermost bulk export (JSON lines, `mmctl export create` or `mattermost
 * export bulk`) this reader takes, as zod schemas of the fields it reads; other fields pass
 * through. Each line is `{"type": T, T: {...}}`. Fields Mattermost writes as null when empty
 * (reactions, replies, attachments, teams) read as empty lists.
 */
import { z } from "zod";

const text = z.string();
const optionalText = z.string().nullish().transform((v) => v ?? "");
/** Milliseconds since the epoch; 0 or absent for "never" (edit_at, delete_at). */
const millis = z.number().nonnegative();
const optionalMillis = z.number().nullish().transform((v) => v ?? 0);
const listOf = <S extends z.ZodType>(item: S) => z.array(item).nullish().transform((v) => v ?? []);

export const versionLine = z.looseObject({ version: z.number().int() });
export const teamLine = z.looseObject({ name: text, display_name: optionalText, description: optionalText });
export const channelLine = z.looseObject({
  team: text,
  name: text,
  display_name: optionalText,
  type: z.enum(["O", "P"]),
  header: optionalText,
  purpose: optionalText,
  deleted_at: optionalMillis,
});

const channelMembership = z.looseObject({ name: text, roles: optionalText });
const teamMembership = z.looseObject({ name: text, roles: optionalText, channels: listOf(channelMembership) });
export const userLine = z.looseObject({
  username: text,
  email: optionalText,
  first_name: optionalText,
  last_name: optionalText,
  nickname: optionalText,
  roles: optionalText,
  teams: listOf(teamMembership),
  delete_at: optionalMillis,
  create_at: optionalMillis,
});

const reaction = z.looseObject({ user: text, emoji_name: text });
const attachment = z.looseObject({ path: text });
/** What a post and each of its replies share. */
const postFields = {
  user: text,
  message: optionalText,
  create_at: millis,
  edit_at: optionalMillis,
  reactions: listOf(reaction),
  attachments: listOf(attachment),
};
export const replyLine = z.looseObject(postFields);
/** `type`: empty for what people wrote, `system_...` for Mattermost's own notices (joins, leaves, header changes). */
export const postLine = z.looseObject({ ...postFields, team: text, channel: text, type: optionalText, replies: listOf(replyLine) });
export const directChannelLine = z.looseObject({ members: z.array(text) });
export const directPostLine = z.looseObject({ ...postFields, channel_members: z.array(text).min(1), replies: listOf(replyLine) });
export const emojiLine = z.looseObject({ name: text, image: text });

export type TeamLine = z.output<typeof teamLine>;
export type ChannelLine = z.output<typeof channelLine>;
export type UserLine = z.output<typeof userLine>;
export type ReplyLine = z.output<typeof replyLine>;
export type PostLine = z.output<typeof postLine>;
export type DirectPostLine = z.output<typeof directPostLine>;
export type EmojiLine = z.output<typeof emojiLine>;
