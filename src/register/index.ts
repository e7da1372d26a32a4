/**
 * The register snapshot's providers, in order; later providers' keys win. Each returns only the
 * keys of the event types the client wants.
 */
import type { StateProvider } from "./provider.ts";
import { alertWordsState } from "./alert-words.ts";
import { defaultStreamsState } from "./default-streams.ts";
import { draftsState } from "./drafts.ts";
import { sidebarState } from "./sidebar.ts";
import { filesState } from "./files.ts";
import { messagesState } from "./messages.ts";
import { organizationState } from "./organization.ts";
import { presenceState } from "./presence.ts";
import { pushState } from "./push.ts";
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
  // navigation_tour_video_url (FL 369): null, no onboarding video on this server.
  ["onboarding_steps", () => ({ onboarding_steps: [], navigation_tour_video_url: null })],
  ["realm_filters", () => ({ realm_filters: [] })],
  ["realm_embedded_bots", () => ({ realm_embedded_bots: [] })],
  ["realm_incoming_webhook_bots", () => ({ realm_incoming_webhook_bots: [] })],
  ["stop_words", () => ({ stop_words: [] })],
  ["default_stream_groups", () => ({ realm_default_stream_groups: [] })],
  ["video_calls", () => ({ has_zoom_token: false })],
  ["giphy", () => ({ giphy_api_key: "" })],
];

/** Empty state of features that hold no data yet (see EMPTY_FEATURES). */
const emptyFeaturesState: StateProvider = {
  async fetch(_ctx, _opts, want) {
    const out: Record<string, unknown> = {};
    for (const [eventType, state] of EMPTY_FEATURES) if (want(eventType)) Object.assign(out, state());
    return out;
  },
};

/** Every provider of the register snapshot, in order: later providers' keys win. */
export const STATE_PROVIDERS: readonly StateProvider[] = [
  emptyFeaturesState,
  realmState,
  userSettingsState,
  userGroupsState,
  usersState,
  streamsState,
  messagesState,
  organizationState,
  presenceState,
  filesState,
  alertWordsState,
  draftsState,
  defaultStreamsState,
  sidebarState,
  pushState,
];

/**
 * The providers whose reads go to the database on every register (message flags and history,
 * presence, drafts); the others' come from the read cache once warm. POST /register starts these
 * first, so their queries run while the others present what the cache holds.
 */
export const QUERYING_PROVIDERS: ReadonlySet<StateProvider> = new Set([messagesState, presenceState, draftsState]);
