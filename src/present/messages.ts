/**
 * Message rows as the API shows them (Zulip's Message object for GET /messages and `message`
 * events), without the per-user `flags`, which readers add from store/messages/message-flags.ts.
 */
import { topicLinks } from "../markdown/topic-links.ts";
import type { Linkifier } from "../markdown/types.ts";
import { realmSettings } from "../permissions/realm-settings.ts";
import type { MessageLookupRows } from "../store/lookups/message-lookups.ts";
import type { MessageRow, RealmRow, ReactionRow, UserRow } from "../store/schema/database.ts";
import { apiEmail, dummyEmail, EMAIL_VISIBILITY } from "../model/emails.ts";
import type { Viewer } from "../permissions/email-visibility.ts";
import { avatarUrl, INACCESSIBLE_USER_NAME } from "./users.ts";

/** How one client asked to see messages. */
export type MessagePresentOptions = {
  /** HTML content (true) or the raw Markdown (false). */
  applyMarkdown: boolean;
  /** The client computes gravatar URLs itself: avatar_url null where it can. */
  clientGravatar: boolean;
  /** The client understands the empty topic "" (FL 334); otherwise it sees the realm's display name. */
  emptyTopicName: boolean;
};

/** A direct-message participant as display_recipient lists it. */
type DisplayRecipientUser = { id: number; email: string; full_name: string; is_mirror_dummy: boolean };

/** One edit-history entry as stored (newest first) and shown. */
export type EditHistoryEntry = {
  user_id: number | null;
  timestamp: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_stream?: number;
  stream?: number;
  prev_topic?: string;
  topic?: string;
};

/** Zulip's Message object (without `flags`). */
export type ApiMessage = {
  id: number;
  sender_id: number;
  content: string;
  recipient_id: number;
  timestamp: number;
  client: string;
  subject: string;
  topic_links: Array<{ text: string; url: string }>;
  is_me_message: boolean;
  reactions: Array<{ emoji_name: string; emoji_code: string; reaction_type: string; user_id: number }>;
  submessages: Array<{ msg_type: string; content: string; message_id: number; sender_id: number; id: number }>;
  sender_full_name: string;
  sender_email: string;
  sender_realm_str: string;
  display_recipient: string | DisplayRecipientUser[];
  type: "stream" | "private";
  stream_id?: number;
  avatar_url: string | null;
  content_type: "text/html" | "text/x-markdown";
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
  edit_history?: EditHistoryEntry[];
};

/** What a message shows of a sender the viewer may not access (Zulip's can_access_sender false). */
export type UnknownSenderFields = Pick<ApiMessage, "sender_full_name" | "sender_email"> & { avatar_url: string };

/** The placeholder sender fields: "Unknown user", the dummy address, the unknown-user avatar. */
export function unknownSenderFields(senderId: number, host: string, unknownAvatarUrl: string): UnknownSenderFields {
  return { sender_full_name: INACCESSIBLE_USER_NAME, sender_email: dummyEmail(senderId, host), avatar_url: unknownAvatarUrl };
}

/** The senders of a batch the viewer may not access, and the avatar shown for them. */
export type HiddenSenders = { ids: ReadonlySet<number>; unknownAvatarUrl: string };

/** Everything presenting a batch of messages needs besides the rows. */
type MessageLookups = {
  host: string;
  realmStringId: string;
  emptyTopicDisplayName: string;
  /** "all", "moves" or "none" (realm message_edit_history_visibility_policy with allow_edit_history). */
  editHistoryPolicy: string;
  senders: ReadonlyMap<number, UserRow>;
  streamNames: ReadonlyMap<number, string>;
  directRecipients: ReadonlyMap<number, DisplayRecipientUser[]>;
  reactions: ReadonlyMap<number, ReactionRow[]>;
  submessages: ReadonlyMap<number, ApiMessage["submessages"]>;
  /** The realm's linkifiers, in order, for topic_links. */
  linkifiers: readonly Linkifier[];
};

function presentDirectUser(user: UserRow, host: string): DisplayRecipientUser {
  return { id: user.id, email: apiEmail(user, host), full_name: user.full_name, is_mirror_dummy: false };
}

/** The edit history a realm lets clients see (absent: none to show). */
function visibleEditHistory(stored: string | null, policy: string): EditHistoryEntry[] | undefined {
  if (stored === null || policy === "none") return undefined;
  const entries = JSON.parse(stored) as EditHistoryEntry[];
  if (policy === "all") return entries.length > 0 ? entries : undefined;
  const moves = entries
    .filter((e) => e.prev_stream !== undefined || e.prev_topic !== undefined)
    .map(({ prev_content: _c, prev_rendered_content: _r, ...rest }) => rest);
  return moves.length > 0 ? moves : undefined;
}

/** The sender's avatar_url for this client: null when the client may compute the gravatar. */
function senderAvatarUrl(sender: UserRow, opts: MessagePresentOptions): string | null {
  const clientComputes = opts.clientGravatar && sender.email_address_visibility === EMAIL_VISIBILITY.everyone && sender.avatar_source === "G";
  return clientComputes ? null : avatarUrl(sender);
}

/**
 * One message in the API's shape for a viewer. Lookups must cover the row (see messageLookups);
 * a sender in `hidden` shows as "Unknown user" (rendered content and ids stay, as in Zulip).
 */
export function presentMessage(row: MessageRow, _viewer: Viewer, opts: MessagePresentOptions, lookups: MessageLookups, hidden?: HiddenSenders): ApiMessage {
  const sender = lookups.senders.get(row.sender_id);
  if (!sender) throw new Error(`sender ${row.sender_id} of message ${row.id} not loaded`);
  const isStream = row.stream_id !== null;
  const unknown = hidden !== undefined && hidden.ids.has(row.sender_id) ? unknownSenderFields(row.sender_id, lookups.host, hidden.unknownAvatarUrl) : null;
  const out: ApiMessage = {
    id: row.id,
    sender_id: row.sender_id,
    content: opts.applyMarkdown ? row.rendered_content : row.content,
    recipient_id: row.recipient_id,
    timestamp: row.date_sent,
    client: row.sending_client,
    subject: isStream && row.topic === "" && !opts.emptyTopicName ? lookups.emptyTopicDisplayName : row.topic,
    topic_links: topicLinks(row.topic, lookups.linkifiers),
    is_me_message: row.is_me_message === 1,
    reactions: (lookups.reactions.get(row.id) ?? []).map((r) => ({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id })),
    submessages: lookups.submessages.get(row.id) ?? [],
    sender_full_name: unknown ? unknown.sender_full_name : sender.full_name,
    sender_email: unknown ? unknown.sender_email : apiEmail(sender, lookups.host),
    sender_realm_str: lookups.realmStringId,
    display_recipient: isStream ? (lookups.streamNames.get(row.stream_id ?? 0) ?? "") : (lookups.directRecipients.get(row.recipient_id) ?? []),
    type: isStream ? "stream" : "private",
    avatar_url: unknown ? unknown.avatar_url : senderAvatarUrl(sender, opts),
    content_type: opts.applyMarkdown ? "text/html" : "text/x-markdown",
  };
  if (isStream && row.stream_id !== null) out.stream_id = row.stream_id;
  if (row.last_edit_time !== null) out.last_edit_timestamp = row.last_edit_time;
  // FL 365: the time of the last move, separate from content edits.
  if (row.last_moved_time !== null) out.last_moved_timestamp = row.last_moved_time;
  const history = visibleEditHistory(row.edit_history, lookups.editHistoryPolicy);
  if (history) out.edit_history = history;
  return out;
}

/** The realm's edit-history visibility as presentMessage applies it. */
function editHistoryPolicy(realm: RealmRow): string {
  const settings = realmSettings(realm);
  return settings.allow_edit_history ? settings.message_edit_history_visibility_policy : "none";
}

/**
 * The lookups of a channel message just sent: its sender and channel are known, and nothing
 * (reactions, submessages) can refer to it yet, so nothing needs reading.
 */
export function newChannelMessageLookups(realm: RealmRow, host: string, sender: UserRow, stream: { id: number; name: string }, linkifiers: readonly Linkifier[]): MessageLookups {
  return {
    host,
    realmStringId: realm.string_id,
    emptyTopicDisplayName: realmSettings(realm).realm_empty_topic_display_name,
    editHistoryPolicy: editHistoryPolicy(realm),
    senders: new Map([[sender.id, sender]]),
    streamNames: new Map([[stream.id, stream.name]]),
    directRecipients: new Map(),
    reactions: new Map(),
    submessages: new Map(),
    linkifiers,
  };
}

/**
 * The lookups of a batch of messages from the rows store/lookups/message-lookups.ts loaded for them:
 * senders, channel names, DM participants, reactions, submessages, linkifiers.
 */
export function messageLookups(realm: RealmRow, host: string, loaded: MessageLookupRows): MessageLookups {
  const { users, streams, reactions, submessages, linkifiers } = loaded;
  const byId = new Map(users.map((u) => [u.id, u]));
  const directRecipients = new Map<number, DisplayRecipientUser[]>();
  for (const [recipientId, memberIds] of loaded.directMembers) {
    directRecipients.set(recipientId, memberIds.flatMap((id) => {
      const user = byId.get(id);
      return user ? [presentDirectUser(user, host)] : [];
    }));
  }
  const reactionMap = new Map<number, ReactionRow[]>();
  for (const r of reactions) reactionMap.set(r.message_id, [...(reactionMap.get(r.message_id) ?? []), r]);
  const submessageMap = new Map<number, ApiMessage["submessages"]>();
  for (const s of submessages) {
    const shown = { msg_type: s.msg_type, content: s.content, message_id: s.message_id, sender_id: s.sender_id, id: s.id };
    submessageMap.set(s.message_id, [...(submessageMap.get(s.message_id) ?? []), shown]);
  }
  return {
    host,
    realmStringId: realm.string_id,
    emptyTopicDisplayName: realmSettings(realm).realm_empty_topic_display_name,
    editHistoryPolicy: editHistoryPolicy(realm),
    senders: byId,
    streamNames: new Map(streams.map((s) => [s.id, s.name])),
    directRecipients,
    reactions: reactionMap,
    submessages: submessageMap,
    linkifiers,
  };
}
