/**
 * Content and topic rules of POST /messages (Zulip's normalize_body, check_stream_topic,
 * truncate_topic): whitespace trimming, null bytes, length limits by truncation, the empty
 * topic and its aliases, and which topics the realm requires.
 */
import { JsonableError } from "../../errors.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import type { RealmRow } from "../../store/schema/database.ts";

/** What a message longer than max_message_length ends with after truncation. */
const CONTENT_TRUNCATION = "\n[message truncated]";
/** What a topic longer than max_topic_length ends with after truncation. */
const TOPIC_TRUNCATION = "...";
/** The legacy spelling of the empty topic (before FL 334). */
const LEGACY_NO_TOPIC = "(no topic)";
/** Control, surrogate and unassigned characters are refused in topics. */
const BAD_TOPIC_CHAR = /[\p{Cc}\p{Cs}\p{Cn}]/u;

function truncate(text: string, max: number, suffix: string): string {
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - suffix.length).join("") + suffix : text;
}

/** Trailing whitespace and leading newlines removed; empty and null-byte content refused; long content truncated. */
export function normalizeContent(raw: string, realm: RealmRow): string {
  // trimEnd strips what /\s+$/u would, in linear time (the regex retries at every space run).
  const body = raw.trimEnd().replace(/^\n+/, "");
  if (body === "") throw new JsonableError("Message must not be empty");
  if (body.includes("\u0000")) throw new JsonableError("Message must not contain null bytes");
  return truncate(body, realmSettings(realm).max_message_length, CONTENT_TRUNCATION);
}

/**
 * The topic a channel message is stored under: trimmed, checked for bad characters, truncated,
 * `(no topic)` and the realm's empty-topic display name read as "" (FL 334), and "" refused where
 * the realm requires topics.
 */
export function normalizeTopic(raw: string | undefined, realm: RealmRow): string {
  if (raw === undefined) throw new JsonableError("Missing topic");
  const topic = raw.trim();
  const bad = BAD_TOPIC_CHAR.exec(topic);
  if (bad) throw new JsonableError(`Invalid character in topic, at position ${[...topic.slice(0, bad.index)].length + 1}!`);
  const settings = realmSettings(realm);
  const stored = topic === LEGACY_NO_TOPIC || topic === settings.realm_empty_topic_display_name ? "" : truncate(topic, settings.max_topic_length, TOPIC_TRUNCATION);
  if (stored === "" && (settings.mandatory_topics || settings.topics_policy === "disable_empty_topic")) {
    throw new JsonableError("Topics are required in this organization");
  }
  return stored;
}

/**
 * Zulip's read_by_sender default (Client.default_read_by_sender): messages sent from a full Zulip
 * UI are read by their sender; those from API clients and integrations start unread.
 */
export function defaultReadBySender(client: string): boolean {
  const name = client.toLowerCase();
  const uiClients = ["zulipandroid", "zulipios", "zulipdesktop", "zulipmobile", "zulipelectron", "zulipterminal", "snipe", "website", "ios", "android"];
  return uiClients.includes(name) || name.includes("desktop app");
}
