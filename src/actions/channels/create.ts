/**
 * POST /channels/create (FL 417): creates one channel and subscribes the named users, as
 * Zulip's create_channel; a taken name is a 409. Creation reuses POST /users/me/subscriptions'.
 */
import { ChannelAlreadyExistsError, JsonableError } from "../../errors.ts";
import { streamCreateEvent } from "../../events/kinds/streams.ts";
import { isGuest, isRealmAdmin } from "../../permissions/check.ts";
import type { GroupSettingValue } from "../../permissions/group-setting.ts";
import { metadataAccessUserIds } from "../../permissions/stream-access.ts";
import { presentStreams } from "../../present/streams.ts";
import type { StreamRow } from "../../store/schema/database.ts";
import { streamLookups } from "../../store/lookups/stream-lookups.ts";
import { getStreamByName } from "../../store/channels/streams.ts";
import type { Db } from "../../store/schema/types.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { doAddDefaultStream } from "./default-streams.ts";
import { checkFolderForStream, doSetStreamFolder } from "./folders.ts";
import type { StreamGroupSetting } from "../../permissions/stream-settings.ts";
import { checkStreamName, parseRetentionDays } from "./settings.ts";
import { createStream, subscribe } from "./subscribe.ts";

/** POST /channels/create's parameters, decoded. */
type CreateChannelInput = {
  name: string;
  description?: string;
  subscribers: number[];
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: string | number;
  folder_id?: number | null;
  groupSettings: Partial<Record<StreamGroupSetting, GroupSettingValue>>;
};

/** Folder and default-channel choices, applied once the channel exists. */
async function finishChannel(tx: Db, env: DoEnv, stream: StreamRow, folderId: number | null, isDefault: boolean): Promise<void> {
  if (folderId !== null) await doSetStreamFolder(tx, env, stream, folderId);
  if (isDefault) await doAddDefaultStream(tx, env, stream);
}

/** Creates the channel; the new channel's id. */
export async function createChannel(ctx: AuthedCtx, input: CreateChannelInput): Promise<{ id: number }> {
  if (isGuest(ctx.actor)) throw new JsonableError("Not allowed for guest users");
  const name = input.name.trim();
  checkStreamName(name);
  if (input.is_default_stream) {
    if (!isRealmAdmin(ctx.actor)) throw new JsonableError("Insufficient permission");
    if (input.invite_only) throw new JsonableError("A default channel cannot be private.");
  }
  const folderId = await checkFolderForStream(ctx.db, ctx.realm.id, input.folder_id ?? null);
  if (await getStreamByName(ctx.db, ctx.realm.id, name)) throw new ChannelAlreadyExistsError(name);
  const description = (input.description ?? "").replaceAll("\n", " ");
  const base = {
    invite_only: input.invite_only,
    is_web_public: input.is_web_public,
    history_public_to_subscribers: input.history_public_to_subscribers,
    message_retention_days: input.message_retention_days,
    groupSettings: input.groupSettings,
    authorization_errors_fatal: true,
  };
  if (input.subscribers.length > 0) {
    // Creating and subscribing is POST /users/me/subscriptions' work, events included.
    await subscribe(ctx, { ...base, subscriptions: [{ name, description }], principals: input.subscribers });
    return withTransaction(ctx, async (tx, emit) => {
      const stream = await getStreamByName(tx, ctx.realm.id, name);
      if (!stream) throw new JsonableError("Invalid channel name");
      await finishChannel(tx, doEnv(ctx, emit), stream, folderId, input.is_default_stream);
      return { id: stream.id };
    });
  }
  const retention = input.message_retention_days === undefined ? null : parseRetentionDays(input.message_retention_days);
  return withTransaction(ctx, async (tx, emit) => {
    const stream = await createStream(ctx, tx, { ...base, subscriptions: [] }, { name, description }, retention);
    // Created by a concurrent request since the check above.
    if (!stream) throw new ChannelAlreadyExistsError(name);
    emit(streamCreateEvent(presentStreams([stream], await streamLookups(tx, ctx.realm.id, [stream]))), await metadataAccessUserIds(ctx, stream, tx));
    await finishChannel(tx, doEnv(ctx, emit), stream, folderId, input.is_default_stream);
    return { id: stream.id };
  });
}
