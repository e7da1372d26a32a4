/**
 * Channel folders (Zulip's zerver/actions/channel_folders.py, FL 389; order FL 414): created,
 * renamed, described, archived and reordered by administrators, seen by everyone in the realm.
 */
import { nowSeconds } from "../../clock.ts";
import { AdministratorRequiredError, JsonableError } from "../../errors.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { presentChannelFolder, type ApiChannelFolder } from "../../present/sidebar.ts";
import { renderStreamDescription } from "../../present/streams.ts";
import { channelFolderAddEvent, channelFolderReorderEvent, channelFolderUpdateEvent } from "../../events/kinds/sidebar.ts";
import {
  countStreamsInFolder,
  setStreamFolder,
  getChannelFolder,
  insertChannelFolder,
  listChannelFolders,
  updateChannelFolder,
  type ChannelFolderRow,
} from "../../store/channels/channel-folders.ts";
import type { Db } from "../../store/schema/types.ts";
import { activeUserIds } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { metadataAccessUserIds } from "../../permissions/stream-access.ts";
import { streamUpdateEvent } from "../../events/kinds/streams.ts";
import type { StreamRow } from "../../store/schema/database.ts";

/** Zulip's ChannelFolder.MAX_NAME_LENGTH, in characters. */
const FOLDER_NAME_LIMIT = 60;
/** Zulip's ChannelFolder.MAX_DESCRIPTION_LENGTH, in characters. */
const FOLDER_DESCRIPTION_LIMIT = 1024;

function requireAdmin(ctx: AuthedCtx): void {
  if (!isRealmAdmin(ctx.actor)) throw new AdministratorRequiredError();
}

/** Zulip's check_channel_folder_name: not blank, not too long, printable, unique in the realm (any case). */
async function checkFolderName(db: Db, realmId: number, name: string, exceptId?: number): Promise<void> {
  if (name === "") throw new JsonableError("Channel folder name can't be empty.");
  const chars = [...name];
  if (chars.length > FOLDER_NAME_LIMIT) throw new JsonableError(`name is too long (limit: ${FOLDER_NAME_LIMIT} characters)`);
  const bad = chars.findIndex((c) => /[\p{Cc}\p{Cs}\p{Cn}]/u.test(c));
  if (bad >= 0) throw new JsonableError(`Invalid character in channel folder name, at position ${bad + 1}.`);
  const lower = name.toLowerCase();
  const clash = (await listChannelFolders(db, realmId)).some((f) => f.id !== exceptId && f.name.toLowerCase() === lower);
  if (clash) throw new JsonableError("Channel folder name already in use");
}

function checkFolderDescription(description: string): void {
  if ([...description].length > FOLDER_DESCRIPTION_LIMIT) {
    throw new JsonableError(`description is too long (limit: ${FOLDER_DESCRIPTION_LIMIT} characters)`);
  }
}

/** The realm's folder with this id; one error for a missing one. */
async function folderById(db: Db, realmId: number, id: number): Promise<ChannelFolderRow> {
  const folder = await getChannelFolder(db, realmId, id);
  if (!folder) throw new JsonableError("Invalid channel folder ID");
  return folder;
}

/**
 * The folder a channel may be put in (PATCH /streams/{id}, POST /channels/create): null clears;
 * an unknown or archived folder is refused, as Zulip's get_channel_folder_by_id does.
 */
export async function checkFolderForStream(db: Db, realmId: number, folderId: number | null): Promise<number | null> {
  if (folderId === null) return null;
  const folder = await folderById(db, realmId, folderId);
  if (folder.is_archived === 1) throw new JsonableError("Invalid channel folder ID");
  return folder.id;
}

/** Puts a channel in a folder (checked by checkFolderForStream) and tells who can see the channel. */
export async function doSetStreamFolder(tx: Db, env: DoEnv, stream: StreamRow, folderId: number | null): Promise<StreamRow> {
  if (stream.folder_id === folderId) return stream;
  const updated = await setStreamFolder(tx, env.realm.id, stream.id, folderId);
  env.emit(streamUpdateEvent({ stream_id: stream.id, name: stream.name }, "folder_id", folderId), await metadataAccessUserIds(env, updated, tx));
  return updated;
}

/** GET /channel_folders: the realm's folders in order, archived ones only when asked. */
export async function getChannelFolders(ctx: AuthedCtx, input: { include_archived: boolean }): Promise<{ channel_folders: ApiChannelFolder[] }> {
  const rows = await listChannelFolders(ctx.db, ctx.realm.id);
  return { channel_folders: rows.filter((r) => input.include_archived || r.is_archived === 0).map(presentChannelFolder) };
}

/** POST /channel_folders/create: administrators only; announced to the whole realm. */
export async function createChannelFolder(ctx: AuthedCtx, input: { name: string; description?: string }): Promise<{ channel_folder_id: number }> {
  requireAdmin(ctx);
  const name = input.name.trim();
  const description = (input.description ?? "").trim();
  checkFolderDescription(description);
  return withTransaction(ctx, async (tx, emit) => {
    await checkFolderName(tx, ctx.realm.id, name);
    const existing = await listChannelFolders(tx, ctx.realm.id);
    const folder = await insertChannelFolder(tx, {
      realm_id: ctx.realm.id,
      name,
      description,
      rendered_description: renderStreamDescription(description, ctx.config.externalUrl),
      date_created: nowSeconds(ctx.clock),
      creator_id: ctx.actor.id,
      is_archived: 0,
      // New folders go last (FL 414).
      order: existing.reduce((max, f) => Math.max(max, f.order + 1), 0),
    });
    emit(channelFolderAddEvent(presentChannelFolder(folder)), await activeUserIds(tx, ctx.realm.id));
    return { channel_folder_id: folder.id };
  });
}

/** PATCH /channel_folders/{id}: name, description, archiving; one event with what changed. */
export async function updateChannelFolderSettings(
  ctx: AuthedCtx,
  folderId: number,
  input: { name?: string; description?: string; is_archived?: boolean },
): Promise<Record<string, never>> {
  requireAdmin(ctx);
  if (input.name === undefined && input.description === undefined && input.is_archived === undefined) {
    throw new JsonableError("No new data supplied");
  }
  const description = input.description?.trim();
  if (description !== undefined) checkFolderDescription(description);
  await withTransaction(ctx, async (tx, emit) => {
    const folder = await folderById(tx, ctx.realm.id, folderId);
    const patch: Partial<Omit<ChannelFolderRow, "id" | "realm_id">> = {};
    const data: Parameters<typeof channelFolderUpdateEvent>[1] = {};
    const name = input.name?.trim();
    if (name !== undefined && name !== folder.name) {
      await checkFolderName(tx, ctx.realm.id, name, folder.id);
      patch.name = data.name = name;
    }
    if (description !== undefined && description !== folder.description) {
      patch.description = data.description = description;
      patch.rendered_description = data.rendered_description = renderStreamDescription(description, ctx.config.externalUrl);
    }
    if (input.is_archived !== undefined && input.is_archived !== (folder.is_archived === 1)) {
      if (input.is_archived && (await countStreamsInFolder(tx, ctx.realm.id, folder.id)) > 0) {
        throw new JsonableError("You need to remove all the channels from this folder to archive it.");
      }
      patch.is_archived = input.is_archived ? 1 : 0;
      data.is_archived = input.is_archived;
    }
    if (Object.keys(patch).length === 0) return;
    await updateChannelFolder(tx, ctx.realm.id, folder.id, patch);
    emit(channelFolderUpdateEvent(folder.id, data), await activeUserIds(tx, ctx.realm.id));
  });
  return {};
}

/** PATCH /channel_folders (FL 414): `order` must list every folder of the realm exactly once. */
export async function reorderChannelFolders(ctx: AuthedCtx, input: { order: number[] }): Promise<Record<string, never>> {
  requireAdmin(ctx);
  await withTransaction(ctx, async (tx, emit) => {
    const folders = await listChannelFolders(tx, ctx.realm.id);
    const ids = new Set(folders.map((f) => f.id));
    const wanted = new Set(input.order);
    if (wanted.size !== input.order.length || wanted.size !== ids.size || input.order.some((id) => !ids.has(id))) {
      throw new JsonableError("Invalid order mapping");
    }
    const position = new Map(input.order.map((id, index) => [id, index]));
    for (const folder of folders) {
      const order = position.get(folder.id) ?? folder.order;
      if (order !== folder.order) await updateChannelFolder(tx, ctx.realm.id, folder.id, { order });
    }
    emit(channelFolderReorderEvent(input.order), await activeUserIds(tx, ctx.realm.id));
  });
  return {};
}
