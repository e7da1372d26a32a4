/**
 * The shapes of a Slack export's JSON files, as zod schemas of the fields the reader uses (the
 * rest passes through): users.json, channels.json (public channels), groups.json (private ones),
 * dms.json and mpims.json (direct and group direct conversations), integration_logs.json, and the
 * messages of the day files. Times are Slack's: UNIX seconds, `ts` as a string with a fraction
 * (a message's id within its conversation), `created` as a number or a string.
 */
import { z } from "zod";

const text = z.string();
const bool = z.boolean().optional().default(false);
const ids = z.array(text).optional().default([]);
const seconds = z.union([z.number(), z.string().regex(/^\d+(\.\d+)?$/)]).transform(Number);
const valueOf = z.looseObject({ value: text.optional().default("") }).optional();

export const slackUser = z.looseObject({
  id: text,
  name: text.optional().default(""),
  real_name: text.nullable().optional(),
  deleted: bool,
  is_admin: bool,
  is_owner: bool,
  is_primary_owner: bool,
  is_restricted: bool,
  is_ultra_restricted: bool,
  is_bot: bool,
  is_app_user: bool,
  tz: text.nullable().optional(),
  updated: z.number().optional(),
  profile: z.looseObject({ real_name: text.optional(), display_name: text.optional(), email: text.optional(), bot_id: text.optional() }).optional().default({}),
});

export const slackChannel = z.looseObject({
  id: text,
  name: text,
  created: seconds.optional().default(0),
  creator: text.optional(),
  /** Absent in some exports of public channels: the reader then takes who wrote or joined there. */
  members: z.array(text).optional(),
  is_archived: bool,
  is_general: bool,
  purpose: valueOf,
  topic: valueOf,
});

export const slackDirect = z.looseObject({ id: text, members: ids, created: seconds.optional().default(0) });

export const slackIntegration = z.looseObject({
  service_type: text.optional(),
  app_type: text.optional(),
  change_type: text.optional(),
  user_name: text.optional(),
});

const slackFile = z.looseObject({
  id: text.optional(),
  name: text.nullable().optional(),
  title: text.nullable().optional(),
  mimetype: text.nullable().optional(),
  permalink: text.optional(),
  mode: text.optional(),
  user: text.optional(),
});
export type SlackFile = z.output<typeof slackFile>;

export const slackMessage = z.looseObject({
  type: text.optional(),
  subtype: text.optional(),
  user: text.optional(),
  bot_id: text.nullable().optional(),
  username: text.optional(),
  bot_profile: z.looseObject({ name: text.optional() }).nullable().optional(),
  text: text.nullable().optional().transform((v) => v ?? ""),
  ts: text.regex(/^\d+(\.\d+)?$/),
  thread_ts: text.optional(),
  edited: z.looseObject({ ts: text.optional() }).optional(),
  reactions: z.array(z.looseObject({ name: text, users: ids })).optional().default([]),
  files: z.array(slackFile).optional().default([]),
  file: slackFile.optional(),
});
export type SlackMessage = z.output<typeof slackMessage>;

export const slackUsers = z.array(slackUser);
export const slackChannels = z.array(slackChannel);
export const slackDirects = z.array(slackDirect);
export const slackIntegrations = z.array(slackIntegration);
export const slackDay = z.array(slackMessage);

export type SlackUser = z.output<typeof slackUser>;
export type SlackChannel = z.output<typeof slackChannel>;
