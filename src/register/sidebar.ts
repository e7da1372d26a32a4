/** The register snapshot's `navigation_views` (FL 390) and `channel_folders` (FL 389, archived ones included, as Zulip sends them). */
import { presentChannelFolder, presentNavigationView } from "../present/sidebar.ts";
import { listChannelFolders, webPublicFolderIds } from "../store/channels/channel-folders.ts";
import { listNavigationViews } from "../store/users/navigation-views.ts";
import type { StateProvider } from "./provider.ts";

/** The caller's navigation views and the realm's channel folders (spectators: no views). */
export const sidebarState: StateProvider = {
  async fetch(ctx, _opts, want) {
    const out: Record<string, unknown> = {};
    if (want("navigation_view")) {
      out.navigation_views = ctx.actor ? (await listNavigationViews(ctx.db, ctx.realm.id, ctx.actor.id)).map(presentNavigationView) : [];
    }
    if (want("channel_folder")) {
      const folders = await listChannelFolders(ctx.db, ctx.realm.id);
      // Spectators see only the folders of web-public channels, as Zulip's get_channel_folders_for_spectators.
      const visible = ctx.actor ? null : await webPublicFolderIds(ctx.db, ctx.realm.id);
      out.channel_folders = folders.filter((f) => visible === null || visible.has(f.id)).map(presentChannelFolder);
    }
    return out;
  },
};
