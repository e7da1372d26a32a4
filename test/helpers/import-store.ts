/**
 * What the import commands' tests (import-zulip, import-slack, import-mattermost) read from a store
 * straight after an import: the imported people's new API keys (an export holds none), and how
 * many rows the import's tables and files hold (all zero after a refused import), and how a
 * refusal reads.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { openStore } from "../../src/store/db.ts";
import type { Database } from "../../src/store/schema/database.ts";
import type { CliResult } from "./server.ts";
import type { FreshStore } from "./stores.ts";

/** Every user's id, full name, address and new API key, read from the store. */
export async function importedCredentials(store: FreshStore): Promise<Array<{ id: number; fullName: string; email: string; apiKey: string }>> {
  const s = openStore({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  try {
    const rows = await s.db.selectFrom("users").select(["id", "full_name", "delivery_email", "api_key"]).execute();
    return rows.map((r) => ({ id: r.id, fullName: r.full_name, email: r.delivery_email, apiKey: r.api_key }));
  } finally {
    await s.close();
  }
}

const TABLES: Array<keyof Database> = ["realms", "users", "user_groups", "streams", "subscriptions", "recipients", "messages", "user_message_flags", "reactions", "attachments", "realm_emoji"];

/** Rows in the tables an import writes, and files under the uploads directory. */
export async function leftovers(store: FreshStore): Promise<Record<string, number>> {
  const s = openStore({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  try {
    const out: Record<string, number> = {};
    for (const table of TABLES) out[table] = Number((await s.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
    const uploads = path.join(store.dataDir, "uploads");
    out.files = fs.existsSync(uploads) ? fs.readdirSync(uploads, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length : 0;
    return out;
  } finally {
    await s.close();
  }
}

/** What leftovers() gives for a store nothing was imported into. */
export const NOTHING = Object.fromEntries([...TABLES, "files"].map((t) => [t, 0])) as Record<string, number>;

/** The command's answer to an import it refused: exit code 1 and `message` after "refused, nothing was imported". */
export function expectRefused(res: CliResult, message: string): void {
  assert.equal(res.code, 1, `the import should be refused: ${res.stdout}${res.stderr}`);
  assert.ok(res.stderr.includes("refused, nothing was imported") && res.stderr.includes(message), `stderr should say ${JSON.stringify(message)}: ${res.stderr}`);
}
