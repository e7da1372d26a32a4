// Data the caller loads for one rendering, and what rendering reports back.

/** A user that a mention may name (load those named by mentionCandidates). */
export interface MentionUser {
  id: number;
  full_name: string;
  email: string;
  /** Deactivated users still render as mentions but are not notified. Default true. */
  is_active?: boolean;
}

/** A user group that a mention may name. */
export interface MentionGroup {
  id: number;
  name: string;
  deactivated: boolean;
  /** Whether the sender may (non-silently) mention this group (can_mention_group). */
  can_mention: boolean;
}

/** A channel the sender may link to with `#**name**`. */
export interface LinkChannel {
  id: number;
  name: string;
}

/** A custom emoji of the realm. */
export interface RealmEmoji {
  name: string;
  source_url: string;
  deactivated: boolean;
}

/** A realm linkifier: a Python-style regex with named groups and an RFC 6570 URL template. */
export interface Linkifier {
  pattern: string;
  url_template: string;
}

/** Everything one rendering may consult; absent lists mean "none". */
export interface RenderContext {
  /** The realm's URL, e.g. "https://chat.example.com" (links to it become "#narrow/..."). */
  realmUrl: string;
  users?: readonly MentionUser[];
  groups?: readonly MentionGroup[];
  channels?: readonly LinkChannel[];
  realmEmoji?: readonly RealmEmoji[];
  linkifiers?: readonly Linkifier[];
  /** The sender's translate_emoticons setting. */
  translateEmoticons?: boolean;
  /** Realm default language for fenced code blocks without one. */
  defaultCodeBlockLanguage?: string;
  /** Characters of code one message may have highlighted; blocks past it stay plain (default 4,000). */
  highlightMaxChars?: number;
  /** Latest message id per topic, keyed by topicKey(channelId, topic), for `/with/` topic links. */
  topicMessageIds?: ReadonlyMap<string, number>;
  /** Image proxy (camo) for previews of external images; without it external images get no preview. */
  camo?: { baseUrl: string; key: string };
  /** TeX renderer (e.g. KaTeX's renderToString); returns null on a TeX error. */
  renderTex?: (tex: string, displayMode: boolean) => string | null;
}

/** Result of rendering one message. */
export interface RenderResult {
  html: string;
  /** Users mentioned non-silently (to get the `mentioned` flag). */
  mentionedUserIds: number[];
  /** Groups mentioned non-silently. */
  mentionedGroupIds: number[];
  /** Non-silently mentioned groups the sender may not mention: the caller must refuse the message. */
  forbiddenGroupMentions: Array<{ id: number; name: string }>;
  wildcard: { channel: boolean; topic: boolean };
  isMeMessage: boolean;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  /** `/user_uploads/` paths (without that prefix) the message links to. */
  linkedUploadPaths: string[];
}

/** Names and ids a message may refer to, for loading exactly those rows. */
export interface MentionCandidates {
  userNames: string[];
  userIds: number[];
  groupNames: string[];
  channelNames: string[];
  /** Channel/topic pairs of `#**channel>topic**` links. */
  topics: Array<{ channelName: string; topic: string }>;
  wildcards: { channel: boolean; topic: boolean };
}

/** Key of RenderContext.topicMessageIds. */
export function topicKey(channelId: number, topic: string): string {
  return `${channelId}\u0000${topic.toLowerCase()}`;
}
