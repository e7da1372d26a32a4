/**
 * Imports a Zulip organization export into an empty Parley, keeping every id (users, channels,
 * messages, uploads...), so links, bookmarks and integrations keep working. Everything is written
 * in one transaction: a refused or failed import leaves the store as it was, and the files it had
 * copied are removed again. The steps run in dependency order: the organization, its people, its
 * groups and settings, its channels and their history, the messages one file at a time, then what
 * refers to messages, and last the id sequences and unread watermarks.
 */
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import { ImportRefusedError } from "../../errors.ts";
import type { Database } from "../../store/schema/database.ts";
import type { Engine } from "../../store/schema/types.ts";
import { existingOrganization, insertRows, resetIdSequences, type TableName } from "../../store/import/bulk-insert.ts";
import { ZulipExport } from "../../formats/zulip/export-reader.ts";
import { userRow } from "../../formats/zulip/rows.ts";
import type { ImportEnv, ImportLog } from "./import-env.ts";
import { writeRealm, writeRealmSettings, writeRealmTables } from "./zulip-organization.ts";
import { writeUsers, writeUserTables } from "./zulip-users.ts";
import { writeGroups } from "./zulip-groups.ts";
import { writeChannels } from "./zulip-channels.ts";
import { writeMessageBatch } from "./zulip-messages.ts";
import { writeAttachments, writeReactions, writeScheduledMessages } from "./zulip-after-messages.ts";
import { avatarFiles, copyAvatars, copyEmoji, copyUploads } from "./zulip-files.ts";
import { ZulipImportState } from "./zulip-state.ts";

/** Tables whose rows the import writes with the export's ids: their sequences move past them. */
const TABLES_WITH_IDS: readonly TableName[] = [
  "realms", "users", "services", "user_groups", "streams", "subscriptions", "custom_profile_fields", "recipients", "direct_groups", "messages",
  "subscription_periods", "user_topics", "reactions", "submessages", "realm_playgrounds", "linkifiers", "realm_emoji", "saved_snippets", "attachments",
  "scheduled_messages", "alert_words", "muted_users", "default_streams", "realm_domains",
];

/** What the import needs of the server: its store, where uploads go and its public URL. */
export type ImportTarget = { db: Kysely<Database>; engine: Engine; uploadsDir: string; externalUrl: string; log: ImportLog };

/** What came across, for the operator. */
export type ImportSummary = { realmName: string; realmId: number; zulipVersion: string; counts: Map<string, number>; notes: string[] };

async function writeEverything(env: ImportEnv, source: ZulipExport, state: ZulipImportState, realm: Record<string, unknown>): Promise<void> {
  state.avatarFiles = await avatarFiles(source);
  await writeUsers(env, source, state, Number(realm.date_created));
  await writeGroups(env, source, state);
  await writeRealmSettings(env, source, realm, state);
  await writeRealmTables(env, source, state);
  await writeUserTables(env, source, state);
  await writeChannels(env, source, state);
  const idle = new Set((await source.all("realm", "zerver_userprofile", userRow)).filter((u) => u.long_term_idle === true).map((u) => u.id));
  let files = 0;
  for await (const batch of source.messageBatches()) {
    await writeMessageBatch(env, batch, state, idle);
    files += 1;
    env.log(`messages: ${batch.file} (${files}/${source.messageFiles.length}), ${env.counts.get("messages") ?? 0} so far`);
  }
  await insertRows(env.tx, "subscription_periods", [...state.runs.periods(state.history)].map((p) => ({ realm_id: env.realmId, user_id: p.userId, stream_id: p.streamId, first_message_id: p.first, last_message_id: p.last })));
  await writeReactions(env, source, state);
  const attachments = await writeAttachments(env, source, state);
  await writeScheduledMessages(env, source, state);
  await copyUploads(env, source, attachments);
  await copyEmoji(env, source);
  await copyAvatars(env, source, state.avatarFiles);
  // Every unread message of every user holds a flag row (zulip-flags.ts): watermarks at the newest.
  await insertRows(env.tx, "unread_watermarks", [...state.users.keys()].map((user_id) => ({ user_id, message_id: state.maxMessageId })));
  await resetIdSequences(env.tx, env.engine, TABLES_WITH_IDS);
}

async function removeFiles(files: readonly string[]): Promise<void> {
  for (const file of files) await fsp.rm(file, { force: true });
}

/**
 * Imports the export at `sourcePath` (a .tar.gz or its unpacked directory). Refuses, with
 * ImportRefusedError and nothing written, a store that already holds an organization and an
 * export that is incomplete, malformed or inconsistent.
 */
export async function importZulipExport(target: ImportTarget, sourcePath: string): Promise<ImportSummary> {
  const existing = await existingOrganization(target.db);
  if (existing !== null) throw new ImportRefusedError(`the store already holds the organization "${existing}": import into an empty store (a new DATA_DIR, or a new database for DATABASE_URL)`);
  const workDir = await fsp.mkdtemp(path.join(os.tmpdir(), "parley-import-"));
  const writtenFiles: string[] = [];
  try {
    let unpacked = 0;
    const source = await ZulipExport.open(sourcePath, workDir, () => {
      unpacked += 1;
      if (unpacked % 1000 === 0) target.log(`unpacking: ${unpacked} files`);
    });
    target.log(`reading a Zulip ${source.version.zulipVersion} export (zerver migration ${source.version.zerverMigration}), ${source.messageFiles.length} message files`);
    const summary = await target.db.transaction().execute(async (tx) => {
      const base = { tx, engine: target.engine, uploadsDir: target.uploadsDir, externalUrl: target.externalUrl, log: target.log, writtenFiles, counts: new Map<string, number>(), notes: [] };
      const realm = await writeRealm(base, source);
      const env: ImportEnv = { ...base, realmId: realm.id };
      const state = new ZulipImportState();
      await writeEverything(env, source, state, realm);
      const unread = await source.unreadTables();
      if (unread.length > 0) env.notes.push(`left aside (Parley keeps no such data, or derives it): ${unread.join(", ")}`);
      return { realmName: String(realm.name), realmId: realm.id, zulipVersion: source.version.zulipVersion, counts: env.counts, notes: env.notes };
    });
    return summary;
  } catch (err) {
    await removeFiles(writtenFiles);
    throw err;
  } finally {
    await fsp.rm(workDir, { recursive: true, force: true });
  }
}
