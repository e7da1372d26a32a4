/** Server configuration, read once from environment variables (documented in README.md). */
import path from "node:path";

/** The server's settings, as read from the environment. */
export type Config = {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  externalUrl: string;
  realmName: string;
  ownerEmail: string;
  logLevel: string;
  maxBodyBytes: number;
  queueIdleSeconds: number;
  heartbeatSeconds: number;
  loginRateLimit: number;
  loginRateWindowSeconds: number;
  rateLimitsEnabled: boolean;
  testControl: boolean;
  /** Largest file POST /user_uploads accepts, in bytes. */
  maxUploadBytes: number;
  /** Largest custom emoji image, in bytes. */
  maxEmojiBytes: number;
  /** Where uploaded files and custom emoji images are stored. */
  uploadsDir: string;
  /** Uploads no message links are deleted after this many weeks. */
  unclaimedUploadWeeks: number;
  /** At most this many concurrent write transactions share one SQLite commit. */
  groupCommitMax: number;
  /** Page cache of each SQLite connection, in MiB. */
  sqliteCacheMb: number;
};

/** At most this many concurrent write transactions share one SQLite commit, unless configured. */
export const DEFAULT_GROUP_COMMIT_MAX = 64;

/** Page cache of each SQLite connection (the writer and the reader), in MiB, unless configured. */
export const DEFAULT_SQLITE_CACHE_MB = 64;

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** Builds the configuration from an environment (process.env by default). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || "127.0.0.1";
  const port = intEnv(env, "PORT", 9991);
  return {
    host,
    port,
    dataDir: path.resolve(env.DATA_DIR || "./data"),
    databaseUrl: env.DATABASE_URL || null,
    redisUrl: env.REDIS_URL || null,
    externalUrl: (env.EXTERNAL_URL || `http://${host}:${port}`).replace(/\/+$/, ""),
    realmName: env.REALM_NAME || "Parley",
    ownerEmail: env.OWNER_EMAIL || "owner@parley.local",
    logLevel: env.LOG_LEVEL || "info",
    // 25 MiB, like Zulip's nginx default, so uploads of ordinary size pass.
    maxBodyBytes: intEnv(env, "MAX_BODY_BYTES", 25 * 1024 * 1024),
    // SPEC.md: a queue idle for 10 minutes is collected; heartbeats every minute.
    queueIdleSeconds: intEnv(env, "EVENT_QUEUE_IDLE_SECONDS", 600),
    heartbeatSeconds: intEnv(env, "EVENT_HEARTBEAT_SECONDS", 60),
    // Failed password logins per email per window before POST /fetch_api_key refuses.
    loginRateLimit: intEnv(env, "LOGIN_RATE_LIMIT", 5),
    loginRateWindowSeconds: intEnv(env, "LOGIN_RATE_WINDOW_SECONDS", 60),
    rateLimitsEnabled: env.RATE_LIMITS !== "off",
    testControl: env.PARLEY_TEST_CONTROL === "1",
    // 25 MiB, the default body limit: a larger upload could not arrive anyway.
    maxUploadBytes: intEnv(env, "MAX_UPLOAD_BYTES", 25 * 1024 * 1024),
    // 5 MiB, Zulip's MAX_EMOJI_FILE_SIZE_MIB default.
    maxEmojiBytes: intEnv(env, "MAX_EMOJI_BYTES", 5 * 1024 * 1024),
    uploadsDir: path.resolve(env.UPLOADS_DIR || path.join(env.DATA_DIR || "./data", "uploads")),
    // Zulip deletes never-linked uploads after three weeks.
    unclaimedUploadWeeks: intEnv(env, "UNCLAIMED_UPLOAD_WEEKS", 3),
    groupCommitMax: intEnv(env, "SQLITE_GROUP_COMMIT_MAX", DEFAULT_GROUP_COMMIT_MAX),
    sqliteCacheMb: intEnv(env, "SQLITE_CACHE_MB", DEFAULT_SQLITE_CACHE_MB),
  };
}
