/**
 * The channel permission settings (Zulip's Stream.stream_permission_group_settings): each
 * setting's default group and whether role:everyone may hold it. Channel creation and update
 * enforce them (actions/channels/settings.ts); the register snapshot describes them to clients
 * (register/permission-settings.ts).
 */
import { SYSTEM_GROUP, type SystemGroupName } from "../model/roles.ts";

/** A setting's default: a system group, or "creator", an anonymous group holding the channel's creator (Zulip's stream_creator_or_nobody). */
export type StreamSettingDefault = SystemGroupName | "creator";

/** The channel permission settings, their defaults and whether role:everyone may hold them (Zulip's values); role:nobody always may. */
export const STREAM_GROUP_SETTINGS = {
  can_add_subscribers_group: { default: SYSTEM_GROUP.nobody, allowEveryone: false },
  can_administer_channel_group: { default: "creator", allowEveryone: false },
  can_delete_any_message_group: { default: SYSTEM_GROUP.nobody, allowEveryone: true },
  can_delete_own_message_group: { default: SYSTEM_GROUP.nobody, allowEveryone: true },
  can_move_messages_out_of_channel_group: { default: SYSTEM_GROUP.nobody, allowEveryone: true },
  can_move_messages_within_channel_group: { default: SYSTEM_GROUP.nobody, allowEveryone: true },
  can_remove_subscribers_group: { default: SYSTEM_GROUP.administrators, allowEveryone: false },
  can_resolve_topics_group: { default: SYSTEM_GROUP.nobody, allowEveryone: true },
  can_send_message_group: { default: SYSTEM_GROUP.everyone, allowEveryone: true },
  can_subscribe_group: { default: SYSTEM_GROUP.nobody, allowEveryone: false },
} as const satisfies Record<string, { default: StreamSettingDefault; allowEveryone: boolean }>;

/** The name of a channel permission setting. */
export type StreamGroupSetting = keyof typeof STREAM_GROUP_SETTINGS;

/** The channel permission settings' names, in declaration order. */
export const STREAM_GROUP_SETTING_NAMES = Object.keys(STREAM_GROUP_SETTINGS) as StreamGroupSetting[];

/** The `<setting>_id` column that stores a setting. */
export type StreamGroupColumn = `${StreamGroupSetting}_id`;

/** The column that stores `setting`. */
export function settingColumn(setting: StreamGroupSetting): StreamGroupColumn {
  return `${setting}_id`;
}
