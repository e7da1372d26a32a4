/**
 * Compile-time check, run by the root type check (`npm run typecheck`): the server's own API
 * shapes (presenters, event builders) fit the client's wire types in web/src/api/types.ts, so a
 * field the app reads cannot be renamed or retyped on one side only. Nothing here runs.
 */
import type { ApiMessage } from "../src/present/messages.ts";
import type { ApiStream, ApiSubscription } from "../src/present/streams.ts";
import type { ReactionEvent } from "../src/events/kinds/reactions.ts";
import type { UpdateMessageFlagsEvent } from "../src/events/kinds/message-flags.ts";
import type { TypingEvent } from "../src/events/kinds/typing.ts";
import type { MutedUsersEvent } from "../src/events/kinds/alert-words.ts";
import type { HistorySnapshot } from "../src/actions/messages/history.ts";
import type { HistorySnapshot as ClientHistorySnapshot } from "./src/api/message-actions.ts";
import type { ModernPresence } from "../src/present/presence.ts";
import type { ApiUserStatus } from "../src/present/organization.ts";
import type { OrganizationEvent } from "../src/events/kinds/organization.ts";
import type { UserStatus } from "./src/api/people.ts";
import type { Message, PresenceTimes, Reaction, ServerEvent, Subscription } from "./src/api/types.ts";
import type { Stream } from "./src/api/manage.ts";
import type { ApiDraft, ApiScheduledMessage } from "../src/present/drafts.ts";
import type { ApiSavedSnippet } from "../src/present/attachments.ts";
import type { DraftsEvent, ScheduledMessagesEvent } from "../src/events/kinds/drafts.ts";
import type { SavedSnippetsEvent } from "../src/events/kinds/snippets.ts";
import type { SavedSnippet, ScheduledMessage, ServerDraft } from "./src/api/compose-types.ts";
import type { ApiRealmExport } from "../src/present/realm-exports.ts";
import type { RealmExportEvent } from "../src/events/kinds/realm-exports.ts";
import type { RealmExport } from "./src/api/exports.ts";

/** Compiles only when A is assignable to B. */
type Fits<A extends B, B> = A;

type EventOf<T extends ServerEvent["type"]> = Omit<Extract<ServerEvent, { type: T }>, "id">;

export type ServerTypesFit = [
  Fits<ApiMessage & { flags: string[] }, Message>,
  Fits<ApiMessage["reactions"][number], Reaction>,
  Fits<ApiSubscription, Subscription>,
  Fits<ApiStream, Stream>,
  Fits<Omit<ReactionEvent, never>, EventOf<"reaction">>,
  Fits<UpdateMessageFlagsEvent, EventOf<"update_message_flags">>,
  Fits<TypingEvent, EventOf<"typing">>,
  Fits<MutedUsersEvent, EventOf<"muted_users">>,
  Fits<HistorySnapshot, ClientHistorySnapshot>,
  Fits<ModernPresence, PresenceTimes>,
  Fits<ApiDraft, ServerDraft>,
  Fits<ApiScheduledMessage, ScheduledMessage>,
  Fits<ApiSavedSnippet, SavedSnippet>,
  Fits<DraftsEvent, EventOf<"drafts">>,
  Fits<ScheduledMessagesEvent, EventOf<"scheduled_messages">>,
  Fits<SavedSnippetsEvent, EventOf<"saved_snippets">>,
  Fits<ApiUserStatus, UserStatus>,
  Fits<Extract<OrganizationEvent, { type: "user_status" }>, EventOf<"user_status">>,
  Fits<ApiRealmExport, RealmExport>,
  Fits<RealmExportEvent, EventOf<"realm_export">>,
];
