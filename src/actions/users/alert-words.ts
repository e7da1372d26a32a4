/**
 * Alert words (Zulip's zerver/actions/alert_words.py): the caller's list, changes to it (each
 * sends the whole new list to the caller), and which receivers of a new message it alerts.
 */
import { JsonableError } from "../../errors.ts";
import { alertWordsEvent } from "../../events/kinds/alert-words.ts";
import { deleteAlertWords, insertAlertWords, listAlertWords, realmAlertWords } from "../../store/users/alert-words.ts";
import type { Db } from "../../store/schema/types.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";

/**
 * What may come right before and after an alert word in a message (Zulip's
 * AlertWordNotificationProcessor). Zulip matches after expanding tabs and turning CR and CRLF
 * into LF, so a tab or CR counts as whitespace here. Its after-set's `",` entry is two
 * characters and never matches one, so a closing double quote ends no alert word there either.
 */
const ALLOWED_BEFORE: ReadonlySet<string> = new Set([" ", "\n", "\t", "\r", "(", '"', ".", ",", "'", ";", "[", "*", "`", ">"]);
const ALLOWED_AFTER: ReadonlySet<string> = new Set([" ", "\n", "\t", "\r", ")", "?", ":", ".", ",", "'", ";", "]", "!", "*", "`"]);

/** No receiver alerted (shared: most messages alert nobody). */
const NOBODY: ReadonlySet<number> = new Set();

/** Whether the lowercased text holds the lowercased word as a whole word (every occurrence is tried). */
export function hasAlertWord(text: string, word: string): boolean {
  if (word === "") return false;
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    const end = at + word.length;
    if ((at === 0 || ALLOWED_BEFORE.has(text[at - 1])) && (end === text.length || ALLOWED_AFTER.has(text[end]))) return true;
  }
  return false;
}

/**
 * Receivers of a message whose alert words occur in its content, the sender excepted: they get
 * the has_alert_word flag. Reads the realm's cached words; nothing more when nobody has any.
 * Zulip skips fenced code blocks; the Markdown here is matched whole.
 */
export async function alertedReceiverIds(db: Db, realmId: number, content: string, receivers: ReadonlySet<number>, senderId: number): Promise<ReadonlySet<number>> {
  const words = await realmAlertWords(db, realmId);
  if (words.size === 0) return NOBODY;
  let text: string | null = null;
  const out = new Set<number>();
  for (const [userId, list] of words) {
    if (userId === senderId || !receivers.has(userId)) continue;
    text ??= content.toLowerCase();
    const lowered = text;
    if (list.some((word) => hasAlertWord(lowered, word))) out.add(userId);
  }
  return out;
}

/** GET /users/me/alert_words: the caller's alert words. */
export async function listOwnAlertWords(ctx: AuthedCtx): Promise<string[]> {
  return (await listAlertWords(ctx.db, ctx.realm.id, ctx.actor.id)).map((r) => r.word);
}

/**
 * POST /users/me/alert_words: adds words (trimmed, empty ones dropped) that the caller does not
 * have yet, case-insensitively; of several new spellings of one word the last is kept, as Zulip
 * does. Returns the whole list, which the event carries too.
 */
export function addAlertWords(ctx: AuthedCtx, input: { alert_words: string[] }): Promise<string[]> {
  const cleaned = input.alert_words.map((w) => w.trim()).filter((w) => w !== "");
  return withTransaction(ctx, async (tx, emit) => {
    const have = new Set((await listAlertWords(tx, ctx.realm.id, ctx.actor.id)).map((r) => r.word.toLowerCase()));
    const fresh = new Map<string, string>();
    for (const word of cleaned) if (!have.has(word.toLowerCase())) fresh.set(word.toLowerCase(), word);
    // Every send matches its receivers' words, so one user's list must stay small.
    const max = ctx.config.maxAlertWordsPerUser;
    if (have.size + fresh.size > max) throw new JsonableError(`Too many alert words (limit: ${max})`);
    await insertAlertWords(tx, ctx.realm.id, ctx.actor.id, [...fresh.values()]);
    const words = (await listAlertWords(tx, ctx.realm.id, ctx.actor.id)).map((r) => r.word);
    emit(alertWordsEvent(words), [ctx.actor.id]);
    return words;
  });
}

/** DELETE /users/me/alert_words: removes the caller's words equal to any given one, case-insensitively; returns the rest. */
export function removeAlertWords(ctx: AuthedCtx, input: { alert_words: string[] }): Promise<string[]> {
  const doomed = new Set(input.alert_words.map((w) => w.toLowerCase()));
  return withTransaction(ctx, async (tx, emit) => {
    const rows = await listAlertWords(tx, ctx.realm.id, ctx.actor.id);
    await deleteAlertWords(tx, ctx.realm.id, ctx.actor.id, rows.filter((r) => doomed.has(r.word.toLowerCase())).map((r) => r.id));
    const words = rows.filter((r) => !doomed.has(r.word.toLowerCase())).map((r) => r.word);
    emit(alertWordsEvent(words), [ctx.actor.id]);
    return words;
  });
}
