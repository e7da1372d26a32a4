/** `navigation_view` events (FL 390, to the view's owner) and `channel_folder` events (FL 389, to the realm). */

import type { ApiChannelFolder, ApiNavigationView } from "../../present/sidebar.ts";

/** A navigation view added, changed or removed. */
export type NavigationViewEvent =
  | { type: "navigation_view"; op: "add"; navigation_view: ApiNavigationView }
  | { type: "navigation_view"; op: "update"; fragment: string; data: { name?: string | null; is_pinned?: boolean } }
  | { type: "navigation_view"; op: "remove"; fragment: string };

/** A channel folder added, changed or the folders reordered. */
export type ChannelFolderEvent =
  | { type: "channel_folder"; op: "add"; channel_folder: ApiChannelFolder }
  | { type: "channel_folder"; op: "update"; channel_folder_id: number; data: Partial<Pick<ApiChannelFolder, "name" | "description" | "rendered_description" | "is_archived">> }
  | { type: "channel_folder"; op: "reorder"; order: number[] };

/** A view was configured. */
export function navigationViewAddEvent(view: ApiNavigationView): NavigationViewEvent {
  return { type: "navigation_view", op: "add", navigation_view: view };
}

/** A view's name or pin changed. */
export function navigationViewUpdateEvent(fragment: string, data: { name?: string | null; is_pinned?: boolean }): NavigationViewEvent {
  return { type: "navigation_view", op: "update", fragment, data };
}

/** A view was removed. */
export function navigationViewRemoveEvent(fragment: string): NavigationViewEvent {
  return { type: "navigation_view", op: "remove", fragment };
}

/** A folder was created. */
export function channelFolderAddEvent(folder: ApiChannelFolder): ChannelFolderEvent {
  return { type: "channel_folder", op: "add", channel_folder: folder };
}

/** A folder's name, description or archived state changed. */
export function channelFolderUpdateEvent(id: number, data: Extract<ChannelFolderEvent, { op: "update" }>["data"]): ChannelFolderEvent {
  return { type: "channel_folder", op: "update", channel_folder_id: id, data };
}

/** The folders' order changed (FL 418). */
export function channelFolderReorderEvent(order: number[]): ChannelFolderEvent {
  return { type: "channel_folder", op: "reorder", order };
}
