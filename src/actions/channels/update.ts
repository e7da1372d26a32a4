/** PATCH /streams/{stream_id}: changing a channel's name, description, privacy and permissions. */
import { AdministratorRequiredError, JsonableError } from "../../errors.ts";
import { hasRealmPermission, isRealmAdmin } from "../../permissions/check.ts";
import { presentGroupSetting, sameGroupSetting, type GroupSettingValue } from "../../permissions/group-setting.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import { accessStreamById, hasContentAccess, hasMetadataAccess, metadataAccessUserIds } from "../../permissions/stream-access.ts";
import { presentStreams, renderStreamDescription, type ApiStream } from "../../present/streams.ts";
import { streamLookups } from "../../store/lookups/stream-lookups.ts";
import { streamCreateEvent, streamDeleteEvent, streamUpdateEvent, type StreamUpdateEvent } from "../../events/kinds/streams.ts";
import type { Db } from "../../store/schema/types.ts";
import type { StreamRow, StreamTable } from "../../store/schema/database.ts";
import { getStreamByName, updateStream } from "../../store/channels/streams.ts";
import { doEnv, withTransaction, type AuthedCtx } from "../context.ts";
import { doUnarchiveStream } from "./streams.ts";
import { doAddDefaultStream, doRemoveDefaultStream, isDefaultStream } from "./default-streams.ts";
import { checkFolderForStream } from "./folders.ts";
import { settingColumn, STREAM_GROUP_SETTING_NAMES, type StreamGroupSetting } from "../../permissions/stream-settings.ts";
import {
  CONTENT_ACCESS_SETTINGS,
  checkCanMakeWebPublic,
  checkCanSetRetention,
  checkStreamName,
  parseRetentionDays,
  storeStreamGroupSetting,
} from "./settings.ts";
import type { Updateable } from "kysely";

/** A requested change of a channel permission setting: the new value, and the value the client believes is current. */
type GroupSettingChange = { new: GroupSettingValue; old?: GroupSettingValue };

/** PATCH /streams/{stream_id}'s parameters; absent ones are left unchanged. */
type StreamChanges = {
  description?: string;
  new_name?: string;
  is_private?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: string | number;
  is_archived?: boolean;
  /** FL 389: a folder id, or null for none. */
  folder_id?: number | null;
  /** Whether new users join it (administrators only). */
  is_default_stream?: boolean;
  groupSettings: Partial<Record<StreamGroupSetting, GroupSettingChange>>;
};

type Privacy = { invite_only: boolean; history: boolean; web_public: boolean };

/** The privacy the request asks for, checked against Zulip's allowed combinations. */
function proposedPrivacy(ctx: AuthedCtx, stream: StreamRow, c: StreamChanges): Privacy {
  const inviteOnly = c.is_private ?? stream.invite_only === 1;
  const webPublic = c.is_web_public ?? stream.is_web_public === 1;
  const history = c.history_public_to_subscribers ?? (c.is_private !== undefined ? !c.is_private : stream.history_public_to_subscribers === 1);
  if (webPublic && (!history || inviteOnly)) throw new JsonableError("Invalid parameters");
  if (!inviteOnly && !history) throw new JsonableError("Invalid parameters");
  if (!inviteOnly && realmSettings(ctx.realm).moderation_request_channel_id === stream.id) {
    throw new JsonableError("Moderation request channel must be private.");
  }
  return { invite_only: inviteOnly, history, web_public: webPublic };
}

/** Checks the privacy change is allowed to this caller. */
async function checkPrivacyChange(ctx: AuthedCtx, db: Db, stream: StreamRow, c: StreamChanges, subscribed: boolean): Promise<void> {
  if (c.is_private !== undefined) {
    if (!(await hasContentAccess(db, ctx.actor, stream, subscribed))) throw new JsonableError("Channel content access is required.");
    const setting = c.is_private ? "can_create_private_channel_group" : "can_create_public_channel_group";
    if (!(await hasRealmPermission(db, ctx.realm, ctx.actor, setting))) throw new JsonableError("Insufficient permission");
  }
  if (c.is_web_public) await checkCanMakeWebPublic(db, ctx.realm, ctx.actor);
}

/** The new name, stripped and checked for Zulip's rules and for clashes. */
async function checkedNewName(ctx: AuthedCtx, db: Db, stream: StreamRow, raw: string): Promise<string> {
  const name = raw.trim();
  if (name === stream.name) throw new JsonableError("Channel already has that name.");
  if (name.toLowerCase() === stream.name.toLowerCase()) return name;
  checkStreamName(name);
  const clash = await getStreamByName(db, ctx.realm.id, name);
  if (!clash) return name;
  const visible = await hasMetadataAccess(db, ctx.actor, clash, false);
  throw new JsonableError(visible ? `Channel '${name}' already exists` : "Insufficient permission");
}

/** Validates requested group settings and stores the changed ones' values, returning column changes. */
async function groupSettingPatch(ctx: AuthedCtx, db: Db, stream: StreamRow, c: StreamChanges, contentAccess: boolean) {
  const patch: Partial<Record<ReturnType<typeof settingColumn>, number>> = {};
  for (const setting of STREAM_GROUP_SETTING_NAMES) {
    const change = c.groupSettings[setting];
    if (!change) continue;
    const current = await presentGroupSetting(db, ctx.realm.id, stream[settingColumn(setting)]);
    if (change.old !== undefined && !sameGroupSetting(current, change.old)) throw new JsonableError("'old' value does not match the expected value.");
    if (sameGroupSetting(current, change.new)) continue;
    if (CONTENT_ACCESS_SETTINGS.includes(setting) && !contentAccess) throw new JsonableError("Channel content access is required.");
    patch[settingColumn(setting)] = await storeStreamGroupSetting(db, ctx.realm, ctx.actor, setting, change.new);
  }
  return patch;
}

/** The `stream op:update` events describing the difference between two presented states. */
function updateEvents(before: ApiStream, after: ApiStream, changed: Set<string>): StreamUpdateEvent[] {
  const events: StreamUpdateEvent[] = [];
  const named = { stream_id: before.stream_id, name: before.name };
  if (before.name !== after.name) events.push(streamUpdateEvent(named, "name", after.name));
  if (changed.has("description")) events.push(streamUpdateEvent(named, "description", after.description, { rendered_description: after.rendered_description }));
  if (before.invite_only !== after.invite_only) {
    const extra = { history_public_to_subscribers: after.history_public_to_subscribers, is_web_public: after.is_web_public };
    events.push(streamUpdateEvent(named, "invite_only", after.invite_only, extra));
  }
  const simple = ["history_public_to_subscribers", "is_web_public", "message_retention_days", "stream_post_policy", "is_announcement_only"] as const;
  for (const key of simple) if (before[key] !== after[key]) events.push(streamUpdateEvent(named, key, after[key]));
  if (before.folder_id !== after.folder_id) events.push(streamUpdateEvent(named, "folder_id", after.folder_id));
  return events;
}

/** PATCH /streams/{stream_id}: validates everything first, then writes once and emits after commit. */
export async function updateStreamSettings(ctx: AuthedCtx, streamId: number, c: StreamChanges): Promise<Record<string, never>> {
  const { stream, sub } = await accessStreamById(ctx, streamId, { forWrite: true, allowArchived: true });
  if (c.is_default_stream !== undefined && !isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
  const privacy = proposedPrivacy(ctx, stream, c);
  // A channel new users join must be one they can see.
  if (privacy.invite_only && (c.is_default_stream ?? (await isDefaultStream(ctx.db, ctx.realm.id, stream.id)))) {
    throw new JsonableError("A default channel cannot be private.");
  }
  await checkPrivacyChange(ctx, ctx.db, stream, c, sub !== null);
  const retention = c.message_retention_days === undefined ? undefined : parseRetentionDays(c.message_retention_days);
  if (retention !== undefined) checkCanSetRetention(ctx.actor);
  const name = c.new_name === undefined ? undefined : await checkedNewName(ctx, ctx.db, stream, c.new_name);
  const contentAccess = await hasContentAccess(ctx.db, ctx.actor, stream, sub !== null);
  const folderId = c.folder_id === undefined ? undefined : await checkFolderForStream(ctx.db, ctx.realm.id, c.folder_id);
  await withTransaction(ctx, async (tx, emit) => {
    const row = c.is_archived === false ? await doUnarchiveStream(tx, doEnv(ctx, emit), stream) : stream;
    const patch: Updateable<StreamTable> = await groupSettingPatch(ctx, tx, row, c, contentAccess);
    if (c.is_private !== undefined || c.is_web_public !== undefined || c.history_public_to_subscribers !== undefined) {
      Object.assign(patch, { invite_only: privacy.invite_only ? 1 : 0, is_web_public: privacy.web_public ? 1 : 0, history_public_to_subscribers: privacy.history ? 1 : 0 });
    }
    if (retention !== undefined) patch.message_retention_days = retention;
    if (name !== undefined) patch.name = name;
    if (folderId !== undefined && folderId !== row.folder_id) patch.folder_id = folderId;
    const description = c.description?.replaceAll("\n", " ");
    if (description !== undefined) Object.assign(patch, { description, rendered_description: renderStreamDescription(description, ctx.config.externalUrl) });
    if (c.is_default_stream === true) await doAddDefaultStream(tx, doEnv(ctx, emit), row);
    if (c.is_default_stream === false) await doRemoveDefaultStream(tx, doEnv(ctx, emit), row);
    if (Object.keys(patch).length === 0) return;
    const audienceBefore = await metadataAccessUserIds(ctx, row, tx);
    const [before] = presentStreams([row], await streamLookups(tx, ctx.realm.id, [row]));
    const updated = await updateStream(tx, ctx.realm.id, stream.id, patch);
    const [after] = presentStreams([updated], await streamLookups(tx, ctx.realm.id, [updated]));
    const audienceAfter = await metadataAccessUserIds(ctx, updated, tx);
    const kept = [...audienceAfter].filter((id) => audienceBefore.has(id));
    const events = updateEvents(before, after, new Set(Object.keys(patch)));
    for (const setting of STREAM_GROUP_SETTING_NAMES) {
      const column = settingColumn(setting);
      if (patch[column] !== undefined) events.push(streamUpdateEvent(before, setting, await presentGroupSetting(tx, ctx.realm.id, updated[column])));
    }
    for (const event of events) emit(event, kept);
    emit(streamCreateEvent([after]), [...audienceAfter].filter((id) => !audienceBefore.has(id)));
    emit(streamDeleteEvent([after]), [...audienceBefore].filter((id) => !audienceAfter.has(id)));
  });
  return {};
}
