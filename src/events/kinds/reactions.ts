/** `reaction` events: an emoji reaction was added to or removed from a message. */

/** One user's reaction added to or removed from a message. */
export type ReactionEvent = {
  type: "reaction";
  op: "add" | "remove";
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
};

/** A reaction changed; the redundant `user` object is gone since FL 328. */
export function reactionEvent(
  op: "add" | "remove",
  reaction: { message_id: number; user_id: number; emoji_name: string; emoji_code: string; reaction_type: string },
): ReactionEvent {
  return {
    type: "reaction",
    op,
    message_id: reaction.message_id,
    user_id: reaction.user_id,
    emoji_name: reaction.emoji_name,
    emoji_code: reaction.emoji_code,
    reaction_type: reaction.reaction_type,
  };
}
