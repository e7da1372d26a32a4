/**
 * Emoji named by requests (reactions and status emoji): Zulip's get_emoji_data (a name to its code
 * and namespace) and check_emoji_request (a name, code and namespace naming one real emoji).
 */
import { JsonableError } from "../../errors.ts";
import { unicodeEmojiCode, unicodeEmojiName } from "../../markdown/emoji-data.ts";
import type { Db } from "../../store/schema/types.ts";
import { getActiveRealmEmoji, getRealmEmojiById } from "../../store/realm/realm-emoji.ts";

/** Zulip's emoji namespaces, as SPEC.md names them. */
export const EMOJI_TYPE = { unicode: "unicode_emoji", realm: "realm_emoji", extra: "service_extra_emoji" } as const;

/** Zulip's own extra emoji, whose code is its name. */
const EXTRA_EMOJI: ReadonlySet<string> = new Set(["zulip"]);

/** An emoji as requests name it: name, code and namespace (`type`). */
export type EmojiRef = { name: string; code: string; type: string };

/** The code and namespace of an emoji name: realm emoji first, then extra, then unicode. */
export async function emojiByName(db: Db, realmId: number, name: string): Promise<{ code: string; type: string }> {
  const custom = await getActiveRealmEmoji(db, realmId, name);
  if (custom) return { code: String(custom.id), type: EMOJI_TYPE.realm };
  if (EXTRA_EMOJI.has(name)) return { code: name, type: EMOJI_TYPE.extra };
  const code = unicodeEmojiCode(name);
  if (code !== undefined) return { code, type: EMOJI_TYPE.unicode };
  throw new JsonableError(`Emoji '${name}' does not exist`);
}

/** Refuses a (name, code, type) triple that does not name one usable emoji of the realm. */
export async function checkEmoji(db: Db, realmId: number, emoji: EmojiRef): Promise<void> {
  switch (emoji.type) {
    case EMOJI_TYPE.realm: {
      const custom = /^\d+$/.test(emoji.code) ? await getRealmEmojiById(db, realmId, Number(emoji.code)) : undefined;
      if (!custom) throw new JsonableError("Invalid custom emoji.");
      if (custom.name !== emoji.name) throw new JsonableError("Invalid custom emoji name.");
      if (custom.deactivated === 1) throw new JsonableError("This custom emoji has been deactivated.");
      return;
    }
    case EMOJI_TYPE.extra:
      if (!EXTRA_EMOJI.has(emoji.code)) throw new JsonableError("Invalid emoji code.");
      if (emoji.name !== emoji.code) throw new JsonableError("Invalid emoji name.");
      return;
    case EMOJI_TYPE.unicode:
      if (unicodeEmojiName(emoji.code) === undefined) throw new JsonableError("Invalid emoji code.");
      if (unicodeEmojiCode(emoji.name) !== emoji.code) throw new JsonableError("Invalid emoji name.");
      return;
    default:
      throw new JsonableError("Invalid emoji type.");
  }
}
