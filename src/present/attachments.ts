/** API shapes of attachments, saved snippets and custom emoji, shared by REST, register and events. */
import type { AttachmentRow, LinkedMessage } from "../store/messages/attachments.ts";
import type { RealmEmojiRow } from "../store/realm/realm-emoji.ts";
import type { SavedSnippetRow } from "../store/users/saved-snippets.ts";

/** OpenAPI's Attachments object (times in milliseconds). */
export type ApiAttachment = { id: number; name: string; path_id: string; size: number; create_time: number; messages: Array<{ id: number; date_sent: number }> };

/** An attachment with the messages linking it. */
export function presentAttachment(row: AttachmentRow, messages: readonly LinkedMessage[]): ApiAttachment {
  return {
    id: row.id,
    name: row.file_name,
    path_id: row.path_id,
    size: Number(row.size),
    create_time: Number(row.create_time) * 1000,
    messages: messages.map((m) => ({ id: m.id, date_sent: m.date_sent * 1000 })),
  };
}

/** OpenAPI's SavedSnippet object. */
export type ApiSavedSnippet = { id: number; title: string; content: string; date_created: number };

/** A saved snippet. */
export function presentSavedSnippet(row: SavedSnippetRow): ApiSavedSnippet {
  return { id: row.id, title: row.title, content: row.content, date_created: Number(row.date_created) };
}

/** OpenAPI's RealmEmoji object. */
export type ApiRealmEmoji = { id: string; name: string; source_url: string; still_url: string | null; deactivated: boolean; author_id: number | null };

/** The path clients load a custom emoji's image from. */
function realmEmojiUrl(realmId: number, fileName: string): string {
  return `/user_avatars/${realmId}/emoji/images/${encodeURIComponent(fileName)}`;
}

/** The realm's custom emoji keyed by id, as GET /realm/emoji, register and events give them. */
export function presentRealmEmoji(rows: readonly RealmEmojiRow[]): Record<string, ApiRealmEmoji> {
  const out: Record<string, ApiRealmEmoji> = {};
  for (const row of rows) {
    out[String(row.id)] = {
      id: String(row.id),
      name: row.name,
      source_url: realmEmojiUrl(row.realm_id, row.file_name),
      // Images are stored as uploaded; no still frame is made, so none is advertised.
      still_url: null,
      deactivated: row.deactivated === 1,
      author_id: row.author_id,
    };
  }
  return out;
}
