/**
 * The register snapshot's providers, in order; later providers' keys win. Each returns only the
 * keys of the event types the client wants.
 */
import { nowSeconds } from "../clock.ts";
import type { StateProvider } from "./provider.ts";
import { filesState } from "./files.ts";
import { messagesState } from "./messages.ts";
import { organizationState } from "./organization.ts";
import { realmState } from "./realm.ts";
import { streamsState } from "./streams.ts";
import { userGroupsState } from "./user-groups.ts";
import { userSettingsState } from "./user-settings.ts";
import { usersState } from "./users.ts";

/**
 * Features this server has no data for yet, with their true (empty) state, so that clients that
 * require the keys (zulip-flutter reads most of them unconditionally) can start. Each entry is
 * replaced by its area's provider when the feature lands. Keyed by the event type that asks for it.
 */
const EMPTY_FEATURES: ReadonlyArray<[string, () => Record<string, unknown>]> = [
  ["alert_words", () => ({ alert_words: [] })],
  ["drafts", () => ({ drafts: [] })],
  ["muted_users", () => ({ muted_users: [] })],
  ["onboarding_steps", () => ({ onboarding_steps: [] })],
  ["realm_domains", () => ({ realm_domains: [] })],
  ["realm_filters", () => ({ realm_filters: [] })],
  ["realm_embedded_bots", () => ({ realm_embedded_bots: [] })],
  ["realm_incoming_webhook_bots", () => ({ realm_incoming_webhook_bots: [] })],
  ["scheduled_messages", () => ({ scheduled_messages: [] })],
  ["stop_words", () => ({ stop_words: [] })],
  ["default_streams", () => ({ realm_default_streams: [] })],
  ["default_stream_groups", () => ({ realm_default_stream_groups: [] })],
  ["video_calls", () => ({ has_zoom_token: false })],
  ["giphy", () => ({ giphy_api_key: "" })],
];

/** Empty state of features that hold no data yet (see EMPTY_FEATURES). */
const emptyFeaturesState: StateProvider = {
  async fetch(ctx, _opts, want) {
    const out: Record<string, unknown> = {};
    for (const [eventType, state] of EMPTY_FEATURES) if (want(eventType)) Object.assign(out, state());
    if (want("presence")) Object.assign(out, { presences: {}, presence_last_update_id: -1, server_timestamp: nowSeconds(ctx.clock) });
    return out;
  },
};

/** Every provider of the register snapshot, in order. */
export const STATE_PROVIDERS: readonly StateProvider[] = [
  emptyFeaturesState,
  realmState,
  userSettingsState,
  userGroupsState,
  usersState,
  streamsState,
  messagesState,
  organizationState,
  filesState,
];
