/** Parameter schemas shared by the channel and subscription routes. */
import { z } from "zod";
import { dbInt, json } from "./params.ts";
import { STREAM_GROUP_SETTING_NAMES, type StreamGroupSetting } from "../permissions/stream-settings.ts";

/** A group-setting value: a group id or `{direct_members, direct_subgroups}`. */
export const groupSettingValue = z.union([
  dbInt(),
  z.object({ direct_members: z.array(dbInt()), direct_subgroups: z.array(dbInt()) }),
]);

/** An update to a group-setting value: `{new, old?}` (PATCH /streams/{id}). */
export const groupSettingChange = z.object({ new: groupSettingValue, old: groupSettingValue.optional() });

/**
 * `message_retention_days`: "realm_default", "unlimited" or a positive count, JSON-encoded or
 * sent as a plain string (the Python bindings send strings unencoded).
 */
export const retentionDays = () =>
  z.preprocess((value) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }, z.union([z.string(), dbInt()]));

/** `principals`: user ids or API emails. */
export const principals = () => json(z.union([z.array(z.string()), z.array(dbInt())]));

/** One optional JSON parameter per channel permission setting, built from the setting list. */
export function groupSettingParams<T extends z.ZodType>(schema: T): Record<StreamGroupSetting, OptionalJson<T>> {
  const out: Partial<Record<StreamGroupSetting, OptionalJson<T>>> = {};
  for (const name of STREAM_GROUP_SETTING_NAMES) out[name] = json(schema).optional();
  return out as Record<StreamGroupSetting, OptionalJson<T>>;
}

type OptionalJson<T extends z.ZodType> = z.ZodOptional<ReturnType<typeof json<T>>>;

/** Picks the channel permission settings out of parsed parameters, leaving out absent ones. */
export function pickGroupSettings<V>(params: Partial<Record<StreamGroupSetting, V | undefined>>): Partial<Record<StreamGroupSetting, V>> {
  const out: Partial<Record<StreamGroupSetting, V>> = {};
  for (const name of STREAM_GROUP_SETTING_NAMES) {
    const value = params[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
