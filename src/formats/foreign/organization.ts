/**
 * An organization read from another chat product (Slack, Mattermost), in the terms every such
 * reader shares: people, channels, conversations and messages, keyed by the source's own ids
 * (strings). A reader (formats/slack/, formats/mattermost/) turns its export into this; one
 * converter turns this into a Zulip export that the Zulip import reads, so every source is
 * imported by the same, tested path. Message text is already Zulip Markdown: each reader converts
 * its own markup and writes mentions as `@**Full Name|key**` placeholders the converter resolves.
 */

/** A role in Parley's terms. */
export type ForeignRole = "owner" | "administrator" | "moderator" | "member" | "guest";

export type ForeignUser = {
  /** The source's id of the person. */
  key: string;
  fullName: string;
  /** An address, made up by the reader when the source has none (name@<realm>.invalid). */
  email: string;
  role: ForeignRole;
  isActive: boolean;
  /** A bot, with the key of its owner when the source names one. */
  bot?: { ownerKey: string | null };
  /** IANA zone name, or "". */
  timezone: string;
  /** UNIX seconds. */
  dateJoined: number;
  /** The avatar image's path on disk (inside the unpacked export), when the export holds one. */
  avatarFile?: string;
};

export type ForeignChannel = {
  key: string;
  name: string;
  description: string;
  isPrivate: boolean;
  isArchived: boolean;
  /** UNIX seconds. */
  created: number;
  creatorKey: string | null;
  /** Keys of the people subscribed. */
  memberKeys: string[];
  /** Whether everyone joining the organization joins it (Slack's #general, Mattermost's town-square). */
  isDefault: boolean;
};

/** A file attached to a message: where it is on disk and what it was called. */
export type ForeignFile = { path: string; name: string; contentType: string | null; ownerKey: string };

export type ForeignReaction = { userKey: string; emojiName: string };

export type ForeignMessage = {
  key: string;
  senderKey: string;
  /** UNIX seconds (with a fraction where the source has one). */
  sent: number;
  /** A channel message, in its topic (threads become topics), or a direct one among `memberKeys` (the sender included). */
  to: { channelKey: string; topic: string } | { memberKeys: string[] };
  /** Zulip Markdown (the reader converted the source's markup). */
  markdown: string;
  /** UNIX seconds of the last edit, when the source says it was edited. */
  edited: number | null;
  reactions: ForeignReaction[];
  files: ForeignFile[];
};

/** A custom emoji and its image on disk. */
export type ForeignEmoji = { name: string; file: string; authorKey: string | null };

/** A whole organization; `messages` in the order they were sent (oldest first), streamed. */
export type ForeignOrganization = {
  /** "Slack" or "Mattermost": for logs and the import's summary. */
  source: string;
  name: string;
  /** The URL key (subdomain) of the organization. */
  stringId: string;
  users: ForeignUser[];
  channels: ForeignChannel[];
  emoji: ForeignEmoji[];
  /** What the reader left aside or could not bring (integrations to set up again...), for the import's summary; optional. */
  notes?: string[];
  messages(): AsyncIterable<ForeignMessage>;
};
