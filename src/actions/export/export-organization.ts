/**
 * Exports an organization in Zulip's own format (upstream's `manage.py export`), which Parley's
 * import-zulip and upstream's import read: the export kind (export-scope.ts) decides what goes
 * in; the messages are read and written a chunk of 1,000 at a time (export-messages.ts), so
 * memory follows the organization's people and channels, not its history. The export is written
 * into a work directory beside the output file, packed into the .tar.gz, then removed. Everything
 * is read in one read-only snapshot of the store on a connection of the export's own
 * (store/export/snapshot.ts): a message sent meanwhile is wholly in or out, and the server's own
 * connections are never held.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { RECIPIENT_TYPE } from "../../store/schema/database.ts";
import { clientNames, directGroupMembers, realmRow, realmRows } from "../../store/export/organization-rows.ts";
import { openReadSnapshot } from "../../store/export/snapshot.ts";
import { packTarGz, ZulipExportWriter } from "../../formats/zulip/export-writer.ts";
import type { ExportEnv, ExportTarget } from "./export-env.ts";
import { ExportScope, type ExportKind } from "./export-scope.ts";
import { writeMessageFiles } from "./export-messages.ts";
import { peopleTables } from "./export-people.ts";
import { channelTables } from "./export-channels.ts";
import { userDataTables } from "./export-user-data.ts";
import { writeImages, writeUploads } from "./export-files.ts";

export type { ExportKind } from "./export-scope.ts";
export type { ExportTarget } from "./export-env.ts";

/** The direct conversations: members by recipient id, and the group ones (three or more) the export holds as huddles. */
async function conversations(env: ExportEnv, kind: ExportKind, consenting: (userId: number) => boolean) {
  const members = new Map<number, number[]>();
  for (const m of await directGroupMembers(env.db, env.realmId)) members.set(m.group_id, [...(members.get(m.group_id) ?? []), m.user_id]);
  const recipients = await realmRows(env.db, "recipients", env.realmId);
  const keys = new Map((await realmRows(env.db, "direct_groups", env.realmId)).map((g) => [g.id, g.member_key]));
  const direct = recipients.filter((r) => r.type === RECIPIENT_TYPE.direct).map((r) => ({ id: r.type_id, recipientId: r.id, key: keys.get(r.type_id) ?? "", members: members.get(r.type_id) ?? [] }));
  const huddles = direct.filter((d) => d.members.length > 2 && kind !== "public" && (kind === "full" || d.members.some(consenting)));
  return { direct, huddles, maxRecipientId: Math.max(0, ...recipients.map((r) => r.id)) };
}

/** Exports the organization `realmId` to `outputFile` (a new .tar.gz); returns the messages written and the file's size. */
export async function exportOrganization(target: ExportTarget, realmId: number, kind: ExportKind, outputFile: string): Promise<{ messages: number; bytes: number }> {
  if (fs.existsSync(outputFile)) throw new Error(`${outputFile} already exists: an export is written to a new file`);
  // Every read below sees one state of the store, on a connection of the export's own.
  const snapshot = await (target.openSnapshot ?? (() => openReadSnapshot(target)))();
  try {
    return await exportSnapshot({ ...target, db: snapshot.db, realmId }, kind, outputFile);
  } finally {
    await snapshot.close();
  }
}

async function exportSnapshot(env: ExportEnv, kind: ExportKind, outputFile: string): Promise<{ messages: number; bytes: number }> {
  const { realmId } = env;
  const realm = await realmRow(env.db, realmId);
  if (!realm) throw new Error(`there is no organization ${realmId}`);
  const users = await realmRows(env.db, "users", realmId);
  const streams = await realmRows(env.db, "streams", realmId);
  const periods = await realmRows(env.db, "subscription_periods", realmId);
  const draft = new ExportScope(kind, users, streams, periods, [], 0);
  const { direct, huddles, maxRecipientId } = await conversations(env, kind, (u) => draft.isPrivateOf(u));
  const scope = new ExportScope(kind, users, streams, periods, direct, maxRecipientId);
  const clients = new Map((await clientNames(env.db, realmId)).map((name, i) => [name, i + 1]));
  const work = await fsp.mkdtemp(path.join(path.dirname(path.resolve(outputFile)), ".parley-export-"));
  try {
    const dir = path.join(work, `zulip-export-${realm.string_id || "organization"}`);
    const writer = await ZulipExportWriter.create(dir);
    env.log(`exporting "${realm.name}" (${kind}): ${users.length} users, ${scope.streamIds.size} channels`);
    const messages = await writeMessageFiles(env, scope, writer, clients);
    const bytes = await writeUploads(env, scope, writer, new Map(users.map((u) => [u.id, u])));
    await writeImages(env, writer, users);
    env.log(`files: ${bytes} bytes of uploads`);
    await writer.writeRealm({
      ...(await peopleTables(env, scope, realm, users)),
      ...(await channelTables(env, scope, realm, users, huddles)),
      zerver_client: [...clients].map(([name, id]) => ({ id, name })),
      ...(await userDataTables(env, scope, clients)),
    });
    await writer.finish();
    env.log("packing the tarball");
    await packTarGz(dir, outputFile);
    return { messages, bytes: (await fsp.stat(outputFile)).size };
  } finally {
    await fsp.rm(work, { recursive: true, force: true });
  }
}
