/** The register snapshot's `drafts`, `scheduled_messages` and `reminders`. */
import { presentDraft, presentReminder, presentScheduledMessage, type ApiReminder, type ApiScheduledMessage } from "../present/drafts.ts";
import { listDrafts } from "../store/messages/drafts.ts";
import { directRecipientMembers } from "../store/messages/messages.ts";
import { listUndeliveredScheduledMessages } from "../store/messages/scheduled-messages.ts";
import type { Db } from "../store/schema/types.ts";
import { userSetting } from "../model/user-settings.ts";
import type { UserRow } from "../store/schema/database.ts";
import { DELIVERY_TYPE } from "../store/schema/drafts.ts";
import { readWanted, type StateProvider } from "./provider.ts";

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE: the newest drafts only; GET /drafts has them all. */
const MAX_DRAFTS_IN_REGISTER_RESPONSE = 1000;

/** The user's undelivered scheduled messages (failed ones included, as Zulip lists them), by delivery time. */
export async function scheduledMessagesOf(db: Db, realmId: number, userId: number): Promise<ApiScheduledMessage[]> {
  const rows = await listUndeliveredScheduledMessages(db, realmId, userId, DELIVERY_TYPE.sendLater);
  const members = await directRecipientMembers(db, [...new Set(rows.filter((r) => r.stream_id === null).map((r) => r.recipient_id))]);
  return rows.map((row) => presentScheduledMessage(row, members));
}

/** The user's undelivered reminders (failed ones included), by delivery time. */
export async function remindersOf(db: Db, realmId: number, userId: number): Promise<ApiReminder[]> {
  return (await listUndeliveredScheduledMessages(db, realmId, userId, DELIVERY_TYPE.remind)).map(presentReminder);
}

/** Drafts are empty for a user who turned their synchronisation off (their calls are refused). */
function syncsDrafts(user: UserRow): boolean {
  return userSetting(user, "enable_drafts_synchronization") !== false;
}

/** Drafts, newest first, scheduled messages and reminders of the caller (spectators have none). */
export const draftsState: StateProvider = {
  async fetch(ctx, _opts, want) {
    const user = ctx.actor;
    return readWanted({
      drafts:
        want("drafts") &&
        (async () => (user && syncsDrafts(user) ? (await listDrafts(ctx.db, ctx.realm.id, user.id, { newestFirst: true, limit: MAX_DRAFTS_IN_REGISTER_RESPONSE })).map(presentDraft) : [])),
      scheduled_messages: want("scheduled_messages") && (() => (user ? scheduledMessagesOf(ctx.db, ctx.realm.id, user.id) : [])),
      reminders: want("reminders") && (() => (user ? remindersOf(ctx.db, ctx.realm.id, user.id) : [])),
    });
  },
};
