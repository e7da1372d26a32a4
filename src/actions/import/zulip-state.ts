/**
 * What a Zulip import learns in one step and uses in later ones: the users and groups it wrote,
 * the clients' names, what each of Zulip's recipient ids is, and each channel's subscription
 * periods. Everything here grows with the organization (users, channels, conversations), never
 * with its messages.
 */
import { SYSTEM_GROUPS } from "../../model/roles.ts";
import { directGroupKey } from "../../store/messages/messages.ts";
import { ChannelHistory } from "./zulip-subscription-history.ts";
import { ReceivedRuns } from "./zulip-received-runs.ts";

/** A user as later steps need it. */
export type ImportedUser = { isActive: boolean };

/** Zulip's recipient types. */
export const ZULIP_RECIPIENT = { personal: 1, stream: 2, directGroup: 3 } as const;

/** A conversation of direct messages as Parley stores it: its recipient row and its members. */
export type DirectConversation = { groupId: number; recipientId: number; members: readonly number[] };

/** A direct conversation not yet written (written before the first message that needs it). */
export type NewConversation = DirectConversation & { key: string };

/** The state shared by a Zulip import's steps. */
export class ZulipImportState {
  readonly users = new Map<number, ImportedUser>();
  /** System groups by name (role:owners, ...), as the export numbers them. */
  readonly systemGroups = new Map<string, number>();
  readonly groupIds = new Set<number>();
  /** Channels by id, with their recipient row's id. */
  readonly streams = new Map<number, { recipientId: number }>();
  readonly clients = new Map<number, string>();
  /** Each user's avatar image in the export, by user id. */
  avatarFiles = new Map<number, string>();
  /** Zulip's recipient rows by id. */
  readonly recipients = new Map<number, { type: number; typeId: number }>();
  /** Direct conversations by member key (huddles from the export, and 1:1 ones made here). */
  readonly conversations = new Map<string, DirectConversation>();
  /** Group conversations by Zulip's recipient id (a huddle's). */
  readonly recipientConversation = new Map<number, DirectConversation>();
  /** Conversations made since the last flush (1:1 and self conversations: Zulip keeps none). */
  pendingConversations: NewConversation[] = [];
  /** Who received which channel messages (zulip-subscription-history.ts), once replayed. */
  history = new ChannelHistory();
  /** Who received which channel messages, by their UserMessage rows (zulip-received-runs.ts). */
  readonly runs = new ReceivedRuns();
  nextDirectGroupId = 1;
  nextRecipientId = 1;
  maxMessageId = 0;

  /** Whether the system groups Parley needs are all there. */
  missingSystemGroups(): string[] {
    return SYSTEM_GROUPS.map((g) => g.name).filter((name) => !this.systemGroups.has(name));
  }

  /** Takes a conversation the export holds (a huddle), under its own ids. */
  addConversation(conversation: DirectConversation): void {
    const key = directGroupKey(conversation.members);
    const known = this.conversations.get(key);
    if (known) {
      this.recipientConversation.set(conversation.recipientId, known);
      return;
    }
    this.conversations.set(key, conversation);
    this.pendingConversations.push({ ...conversation, key });
    this.recipientConversation.set(conversation.recipientId, conversation);
  }

  /** The conversation of exactly these users: an existing one, or a new one to write. */
  conversationOf(userIds: readonly number[]): DirectConversation {
    const key = directGroupKey(userIds);
    const known = this.conversations.get(key);
    if (known) return known;
    const made: NewConversation = { key, groupId: this.nextDirectGroupId++, recipientId: this.nextRecipientId++, members: [...new Set(userIds)].sort((a, b) => a - b) };
    this.conversations.set(key, made);
    this.pendingConversations.push(made);
    return made;
  }
}
