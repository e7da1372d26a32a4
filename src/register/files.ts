/** The register snapshot's `saved_snippets` and `realm_emoji`. */
import { presentRealmEmoji, presentSavedSnippet, type ApiRealmEmoji } from "../present/attachments.ts";
import type { Db } from "../store/schema/types.ts";
import { listRealmEmoji } from "../store/realm/realm-emoji.ts";
import { listSavedSnippets } from "../store/users/saved-snippets.ts";
import type { StateProvider } from "./provider.ts";

/** Saved snippets (unauthenticated spectators have none) and the realm's custom emoji. */
export const filesState: StateProvider = {
  async fetch(ctx, _opts, want) {
    const out: Record<string, unknown> = {};
    if (want("saved_snippets")) {
      out.saved_snippets = ctx.actor ? (await listSavedSnippets(ctx.db, ctx.realm.id, ctx.actor.id)).map(presentSavedSnippet) : [];
    }
    if (want("realm_emoji")) out.realm_emoji = await realmEmojiDict(ctx.db, ctx.realm.id);
    return out;
  },
};

/** The realm's custom emoji keyed by id (deactivated ones included). */
export async function realmEmojiDict(db: Db, realmId: number): Promise<Record<string, ApiRealmEmoji>> {
  return presentRealmEmoji(await listRealmEmoji(db, realmId));
}
