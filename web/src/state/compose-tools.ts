/**
 * The compose box's tools in the event queue: the event types they need, their snapshot keys
 * loaded, their events applied (drafts on the server, scheduled messages, saved snippets).
 */
import type { ComposeToolsEvent } from "../api/compose-types.ts";
import type { RegisterResponse } from "../api/types.ts";
import { applyScheduledEvent, loadScheduled } from "./scheduled.ts";
import { applyDraftsEvent, forgetServerDrafts, loadServerDrafts } from "./server-drafts.ts";
import { applySnippetsEvent, loadSnippets } from "./snippets.ts";

/** The event types (and so snapshot keys) the tools ask for. */
export const COMPOSE_TOOLS_EVENT_TYPES = ["drafts", "scheduled_messages", "saved_snippets"];

/** A new snapshot. */
export function loadComposeTools(state: RegisterResponse, userId: number): void {
  loadServerDrafts(state.drafts, userId);
  loadScheduled(state.scheduled_messages);
  loadSnippets(state.saved_snippets);
}

/** One of their events. */
export function applyComposeToolsEvent(event: ComposeToolsEvent, userId: number): void {
  if (event.type === "drafts") applyDraftsEvent(event, userId);
  else if (event.type === "scheduled_messages") applyScheduledEvent(event);
  else applySnippetsEvent(event);
}

/** Signed out. */
export function forgetComposeTools(): void {
  forgetServerDrafts();
  loadScheduled([]);
  loadSnippets([]);
}
