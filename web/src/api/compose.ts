/**
 * The compose box's calls beyond sending, typed: previewing a message's rendering, drafts saved
 * on the server, scheduled messages and saved snippets (their shapes: compose-types.ts).
 */
import { call, type Params } from "./client.ts";
import type { DraftData, SavedSnippet, ScheduledMessage, ServerDraft } from "./compose-types.ts";

/** The calls. */
export const composeApi = {
  render: (content: string) => call<{ rendered: string }>("POST", "/messages/render", { content }),

  drafts: () => call<{ drafts: ServerDraft[] }>("GET", "/drafts"),
  createDrafts: (drafts: DraftData[]) => call<{ ids: number[] }>("POST", "/drafts", { drafts }),
  editDraft: (id: number, draft: DraftData) => call<object>("PATCH", `/drafts/${id}`, { draft }),
  deleteDraft: (id: number) => call<object>("DELETE", `/drafts/${id}`),

  scheduledMessages: () => call<{ scheduled_messages: ScheduledMessage[] }>("GET", "/scheduled_messages"),
  schedule: (params: Params) => call<{ scheduled_message_id: number }>("POST", "/scheduled_messages", params),
  editScheduled: (id: number, params: Params) => call<object>("PATCH", `/scheduled_messages/${id}`, params),
  deleteScheduled: (id: number) => call<object>("DELETE", `/scheduled_messages/${id}`),

  snippets: () => call<{ saved_snippets: SavedSnippet[] }>("GET", "/saved_snippets"),
  createSnippet: (title: string, content: string) => call<{ saved_snippet_id: number }>("POST", "/saved_snippets", { title, content }),
  editSnippet: (id: number, params: { title?: string; content?: string }) => call<object>("PATCH", `/saved_snippets/${id}`, params),
  deleteSnippet: (id: number) => call<object>("DELETE", `/saved_snippets/${id}`),
};
