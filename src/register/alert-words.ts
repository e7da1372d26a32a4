/** The register snapshot's `alert_words` and `muted_users` (spectators have neither). */
import { presentMutedUsers } from "../present/muted-users.ts";
import { listAlertWords } from "../store/users/alert-words.ts";
import { listMutedUsers } from "../store/users/muted-users.ts";
import type { StateProvider } from "./provider.ts";

/** The caller's alert words and the users they muted. */
export const alertWordsState: StateProvider = {
  async fetch(ctx, _opts, want) {
    const out: Record<string, unknown> = {};
    const actor = ctx.actor;
    if (want("alert_words")) out.alert_words = actor ? (await listAlertWords(ctx.db, ctx.realm.id, actor.id)).map((r) => r.word) : [];
    if (want("muted_users")) out.muted_users = actor ? presentMutedUsers(await listMutedUsers(ctx.db, ctx.realm.id, actor.id)) : [];
    return out;
  },
};
