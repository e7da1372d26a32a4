/**
 * The wire shapes of the compose box's tools: drafts saved on the server, scheduled messages and
 * saved snippets, as the server answers them, its snapshot keys and its events about them (sent
 * only to their owner's queues). `web/server-types.check.ts` checks them against the server's.
 */

/** A draft on the server (Zulip's Draft): `to` is [channel id], or the other users (or [self]). */
export type ServerDraft = { id: number; type: "" | "stream" | "private"; to: number[]; topic: string; content: string; timestamp: number };

/** A draft as it is sent (Zulip's DraftData); `timestamp` in UNIX seconds. */
export type DraftData = { type: "" | "stream" | "private"; to: number[]; topic: string; content: string; timestamp: number };

/** A message waiting to be sent: `to` is a channel id, or user ids. */
export type ScheduledMessage = {
  scheduled_message_id: number;
  type: "stream" | "private";
  to: number | number[];
  topic?: string;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
};

/** A saved snippet. */
export type SavedSnippet = { id: number; title: string; content: string; date_created: number };

/** The events about them. */
export type ComposeToolsEvent =
  | { id: number; type: "drafts"; op: "add"; drafts: ServerDraft[] }
  | { id: number; type: "drafts"; op: "update"; draft: ServerDraft }
  | { id: number; type: "drafts"; op: "remove"; draft_id: number }
  | { id: number; type: "scheduled_messages"; op: "add"; scheduled_messages: ScheduledMessage[] }
  | { id: number; type: "scheduled_messages"; op: "update"; scheduled_message: ScheduledMessage }
  | { id: number; type: "scheduled_messages"; op: "remove"; scheduled_message_id: number }
  | { id: number; type: "saved_snippets"; op: "add" | "update"; saved_snippet: SavedSnippet }
  | { id: number; type: "saved_snippets"; op: "remove"; saved_snippet_id: number };

/** The register snapshot's keys for them (asked for with their event types). */
export type ComposeToolsSnapshot = { drafts?: ServerDraft[]; scheduled_messages?: ScheduledMessage[]; saved_snippets?: SavedSnippet[] };
