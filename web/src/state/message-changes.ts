/**
 * The user's changes to one message, from its toolbar, menu and reactions: star it, react or take
 * a reaction back, read its Markdown source and save an edit, delete it. The feed follows the
 * server's events (update_message_flags, reaction, update_message, delete_message), not these
 * calls' answers.
 */
import { api } from "../api/client.ts";
import type { Message, Reaction } from "../api/types.ts";

/** An emoji of a reaction, whoever reacted with it. */
export type ReactionEmoji = Omit<Reaction, "user_id">;

/** Stars or unstars a message (a failure changes nothing, and the menu still says what holds). */
export function setStarred(messageId: number, starred: boolean): void {
  void api.flags([messageId], starred ? "add" : "remove", "starred").catch(() => undefined);
}

/** Adds my reaction, or takes it back when I already reacted with that emoji (as upstream's picker). */
export function toggleReaction(message: Message, emoji: ReactionEmoji, myId: number): void {
  const mine = message.reactions.some((r) => r.user_id === myId && r.reaction_type === emoji.reaction_type && r.emoji_code === emoji.emoji_code);
  void api.reaction(message.id, mine ? "remove" : "add", emoji).catch(() => undefined);
}

/** A message's Markdown source (GET /messages/{id} without rendering), for the editor. */
export async function rawContent(messageId: number): Promise<string> {
  return (await api.message(messageId)).raw_content;
}

/** What an edit changes: the content, and the topic with how far the move reaches. */
export type MessageEdit = { content?: string; topic?: string; propagate_mode?: "change_one" | "change_later" | "change_all" };

/** Saves an edit (PATCH /messages/{id}); rejects with the server's error. */
export async function editMessage(messageId: number, edit: MessageEdit): Promise<void> {
  await api.editMessage(messageId, edit);
}

/** Deletes a message; rejects with the server's error. */
export async function deleteMessage(messageId: number): Promise<void> {
  await api.deleteMessage(messageId);
}
