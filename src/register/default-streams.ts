/** The register snapshot's `default_streams` part: realm_default_streams, as channel ids (FL 330). */
import { isGuest } from "../permissions/check.ts";
import { defaultStreamIds } from "../store/channels/default-streams.ts";
import type { StateProvider } from "./provider.ts";

/** The realm's default channel ids; empty for guests and spectators, who get no default_streams events. */
export const defaultStreamsState: StateProvider = {
  async fetch(ctx, _opts, want) {
    if (!want("default_streams")) return {};
    const actor = ctx.actor;
    if (!actor || isGuest(actor)) return { realm_default_streams: [] };
    return { realm_default_streams: await defaultStreamIds(ctx.db, ctx.realm.id) };
  },
};
