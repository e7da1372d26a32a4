/** The register snapshot's `drafts` and `scheduled_messages`. */
import { presentDraft, presentScheduledMessage, type ApiScheduledMessage } from "../present/drafts.ts";
import { listDrafts } from "../store/drafts.ts";
import { directRecipientMembers } from "../store/messages.ts";
import { listUndeliveredScheduledMessages } from "../store/scheduled-messages.ts";
import type { Db } from "../store/types.ts";
import { userSetting } from "../store/user-settings.ts";
import type { UserRow } from "../store/schema.ts";
import type { StateProvider } from "./provider.ts";

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE: the newest drafts only; GET /drafts has them all. */
const MAX_DRAFTS_IN_REGISTER_RESPONSE = 1000;

/** The user's undelivered scheduled messages (failed ones included, as Zulip lists them), by delivery time. */
export async function scheduledMessagesOf(db: Db, realmId: number, userId: number): Promise<ApiScheduledMessage[]> {
  const rows = await listUndeliveredScheduledMessages(db, realmId, userId);
  const members = await directRecipientMembers(db, [...new Set(rows.filter((r) => r.stream_id === null).map((r) => r.recipient_id))]);
  return rows.map((row) => presentScheduledMessage(row, members));
}

/** Drafts are empty for a user who turned their synchronisation off (their calls are refused). */
function syncsDrafts(user: UserRow): boolean {
  return userSetting(user, "enable_drafts_synchronization") !== false;
}

/** Drafts, newest first, and scheduled messages of the caller (spectators have none). */
export const draftsState: StateProvider = {
  async fetch(ctx, _opts, want) {
    const out: Record<string, unknown> = {};
    const user = ctx.actor;
    if (want("drafts")) {
      out.drafts = user && syncsDrafts(user) ? (await listDrafts(ctx.db, ctx.realm.id, user.id, { newestFirst: true, limit: MAX_DRAFTS_IN_REGISTER_RESPONSE })).map(presentDraft) : [];
    }
    if (want("scheduled_messages")) out.scheduled_messages = user ? await scheduledMessagesOf(ctx.db, ctx.realm.id, user.id) : [];
    return out;
  },
};
