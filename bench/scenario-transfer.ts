/**
 * Scenario `transfer` (issue 41; run when named: `npm run bench -- transfer`): how fast an
 * organization moves out and in. On each store, the history scenario's organization
 * (bench/history-org.ts: 40 users, 10 channels, every message with its flag rows) with
 * BENCH_TRANSFER_MESSAGES messages, BENCH_TRANSFER_UPLOADS of them carrying an upload sent through
 * the API; then `parley export --full` of it and `parley import-zulip` of that export into an
 * empty store, each a process of its own whose peak memory (maxRSS) is read as it exits. The same
 * at a fifth of the size shows whether memory grows with the history (it must not: both stream).
 * The ceilings, measured in this process on the same export: reading it (gunzip, untar, JSON.parse
 * of every messages file, which any importer must do) and writing it (JSON.stringify and gzip of
 * the same files); each rate is given as a ratio to its ceiling.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { sql } from "kysely";
import { openStore } from "../src/store/db.ts";
import { extractTarGz } from "../src/formats/zulip/tar-extract.ts";
import { freshStore, STORES, type FreshStore, type StoreKind } from "../test/helpers/stores.ts";
import { basicAuth } from "./org.ts";
import { createHistoryUsers, seedHistoryOrg, type HistoryOrg } from "./history-org.ts";
import { num } from "./settings.ts";
import { ROOT, startParley } from "./servers.ts";

export type TransferSettings = { messages: number; uploads: number; uploadBytes: number; sqliteCacheMb: number; stores: StoreKind[] };

/** One command's run: wall time (process start included) and the process's peak resident memory. */
export type CommandRun = { seconds: number; peakMb: number };

/** One size on one store. */
export type TransferRun = {
  messages: number;
  flagRows: number;
  uploadMb: number;
  exportMb: number;
  exported: CommandRun;
  imported: CommandRun;
  /** Messages the imported store holds (must equal `messages`). */
  importedMessages: number;
  readCeilingSeconds: number;
  writeCeilingSeconds: number;
};

export type TransferResult = { settings: TransferSettings; runs: Array<{ store: StoreKind; small: TransferRun; large: TransferRun }> };

export function transferSettings(): TransferSettings {
  return {
    messages: Math.round(num("BENCH_TRANSFER_MESSAGES", 100_000)),
    uploads: Math.round(num("BENCH_TRANSFER_UPLOADS", 500)),
    uploadBytes: Math.round(num("BENCH_TRANSFER_UPLOAD_BYTES", 64 * 1024)),
    // The commands' SQLite page cache (SQLITE_CACHE_MB, per connection): a bound of its own that
    // fills as the store grows; small, so it is full at both sizes and what differs is the rest.
    sqliteCacheMb: Math.round(num("BENCH_TRANSFER_SQLITE_CACHE_MB", 16)),
    stores: STORES,
  };
}

/** Printed by the child as it exits: its peak resident set (kilobytes). */
const PEAK_MARK = "PARLEY_BENCH_PEAK_RSS_KB=";
const PEAK_HOOK = path.join(ROOT, "bench/peak-memory-hook.mjs");

/** Runs `parley <args>` on a store as an operator would, timing it and reading its peak memory. */
async function runCommand(fresh: FreshStore, args: string[], sqliteCacheMb: number): Promise<CommandRun & { output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: fresh.dataDir, LOG_LEVEL: "warn", SQLITE_CACHE_MB: String(sqliteCacheMb), NODE_OPTIONS: `--import=${PEAK_HOOK}` };
  for (const name of ["DATABASE_URL", "REDIS_URL", "PARLEY_TEST_CONTROL", "PROCESS_ID"]) delete env[name];
  if (fresh.databaseUrl) env.DATABASE_URL = fresh.databaseUrl;
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, "bin/parley.js"), ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-50_000)));
  child.stderr.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-50_000)));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`parley ${args.join(" ")} exited with ${code}:\n${output.slice(-3000)}`);
  const peak = new RegExp(`${PEAK_MARK}(\\d+)`).exec(output);
  return { seconds, peakMb: peak ? Number(peak[1]) / 1024 : NaN, output };
}

/** Sends `count` messages each carrying a fresh upload of `bytes` random bytes, through the API. */
async function sendUploads(url: string, org: HistoryOrg, count: number, bytes: number): Promise<void> {
  const sender = org.org.users[1];
  const channel = org.channels.find((c) => c.members.some((m) => m.id === sender.id)) ?? org.channels[0];
  for (let i = 0; i < count; i++) {
    const form = new FormData();
    form.append("file", new Blob([randomBytes(bytes)]), `report-${i}.bin`);
    const up = await fetch(`${url}/api/v1/user_uploads`, { method: "POST", headers: { authorization: basicAuth(sender) }, body: form });
    const uploaded = (await up.json()) as { url?: string; result: string };
    if (uploaded.result !== "success" || !uploaded.url) throw new Error(`upload ${i} failed: ${JSON.stringify(uploaded)}`);
    const body = new URLSearchParams({ type: "stream", to: String(channel.id), topic: "uploads", content: `[report ${i}](${uploaded.url})` });
    const sent = await fetch(`${url}/api/v1/messages`, { method: "POST", headers: { authorization: basicAuth(sender) }, body });
    if (!sent.ok) throw new Error(`message with upload ${i} failed: ${sent.status} ${await sent.text()}`);
  }
}

/** The format's own cost: unpack the export and parse every messages file; then write them again (JSON, gzip). */
async function ceilings(tarball: string): Promise<{ readSeconds: number; writeSeconds: number }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "parley-bench-ceiling-"));
  try {
    let started = performance.now();
    await extractTarGz(tarball, dir);
    const files: string[] = [];
    const walk = async (d: string) => {
      for (const e of await fsp.readdir(d, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(path.join(d, e.name));
        else if (/^messages-\d{6}\.json$/.test(e.name)) files.push(path.join(d, e.name));
      }
    };
    await walk(dir);
    const parsed: unknown[] = [];
    for (const f of files.sort()) parsed.push(JSON.parse(await fsp.readFile(f, "utf8")));
    const readSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const out = path.join(dir, "rewritten.json.gz");
    await pipeline(
      Readable.from((function* () {
        for (const p of parsed) yield Buffer.from(JSON.stringify(p, null, 2));
      })()),
      zlib.createGzip(),
      fs.createWriteStream(out),
    );
    return { readSeconds, writeSeconds: (performance.now() - started) / 1000 };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

async function messageCount(fresh: FreshStore): Promise<number> {
  const store = openStore({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
  try {
    const row = await sql<{ n: number | string }>`select count(*) as n from messages`.execute(store.db);
    return Number(row.rows[0]?.n ?? 0);
  } finally {
    await store.close();
  }
}

async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const e of await fsp.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += (await fsp.stat(path.join(e.parentPath, e.name))).size;
  }
  return total;
}

async function measureSize(kind: StoreKind, messages: number, settings: TransferSettings, log: (line: string) => void): Promise<TransferRun> {
  const source = await freshStore(kind);
  const target = await freshStore(kind);
  const tarball = path.join(os.tmpdir(), `parley-bench-export-${process.pid}-${kind}-${messages}.tar.gz`);
  try {
    const users = await createHistoryUsers(source);
    const server = await startParley({ dataDir: source.dataDir, databaseUrl: source.databaseUrl });
    let org: HistoryOrg;
    try {
      org = await seedHistoryOrg(source, server.url, users, messages - settings.uploads);
      await sendUploads(server.url, org, settings.uploads, settings.uploadBytes);
    } finally {
      await server.stop();
    }
    const uploadMb = (await directorySize(path.join(source.dataDir, "uploads")).catch(() => 0)) / 1024 / 1024;
    log(`  transfer ${kind}: ${messages.toLocaleString("en-US")} messages (${org.flagRows.toLocaleString("en-US")} flag rows), ${uploadMb.toFixed(1)} MB of uploads, seeded in ${org.seedSeconds.toFixed(0)} s`);
    const exported = await runCommand(source, ["export", "--full", "--output", tarball], settings.sqliteCacheMb);
    const exportMb = (await fsp.stat(tarball)).size / 1024 / 1024;
    log(`  transfer ${kind}: export ${exported.seconds.toFixed(1)} s, ${exportMb.toFixed(1)} MB, peak ${exported.peakMb.toFixed(0)} MB`);
    const imported = await runCommand(target, ["import-zulip", tarball], settings.sqliteCacheMb);
    const importedMessages = await messageCount(target);
    log(`  transfer ${kind}: import ${imported.seconds.toFixed(1)} s, peak ${imported.peakMb.toFixed(0)} MB, ${importedMessages.toLocaleString("en-US")} messages in the new store`);
    const ceiling = await ceilings(tarball);
    return { messages, flagRows: org.flagRows, uploadMb, exportMb, exported, imported, importedMessages, readCeilingSeconds: ceiling.readSeconds, writeCeilingSeconds: ceiling.writeSeconds };
  } finally {
    await fsp.rm(tarball, { force: true });
    await source.drop();
    await target.drop();
  }
}

/** Runs the transfer scenario on each store: a fifth of the size, then the whole. */
export async function runTransferScenario(settings: TransferSettings, log: (line: string) => void): Promise<TransferResult> {
  const runs: TransferResult["runs"] = [];
  for (const store of settings.stores) {
    const small = await measureSize(store, Math.round(settings.messages / 5), settings, log);
    const large = await measureSize(store, settings.messages, settings, log);
    runs.push({ store, small, large });
  }
  return { settings, runs };
}
