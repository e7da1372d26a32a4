/** Server configuration, read once from environment variables (documented in README.md). */
import net from "node:net";
import path from "node:path";
import ipaddr from "ipaddr.js";

/** The server's settings, as read from the environment. */
export type Config = {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES: addresses or CIDR ranges; none by default). */
  trustedProxies: string[];
  /** The prefix of this process's event queue ids (PROCESS_ID; the port by default): unique among processes sharing Redis. */
  processId: string | null;
  /** Where the other processes reach this one (INTERNAL_URL; http://HOST:PORT by default, 127.0.0.1 for a wildcard HOST). */
  internalUrl: string;
  externalUrl: string;
  realmName: string;
  ownerEmail: string;
  logLevel: string;
  maxBodyBytes: number;
  queueIdleSeconds: number;
  heartbeatSeconds: number;
  /** Where a graceful shutdown saves the event queues for the next start (EVENT_QUEUES_DIR; DATA_DIR by default). */
  eventQueuesDir: string;
  /** With REDIS_URL: how many published event batches Redis keeps for processes that restart (EVENT_BACKLOG_LENGTH). */
  eventBacklogLength: number;
  /** With REDIS_URL: how long a message event waits for the lower message ids other processes drew (EVENT_ORDER_WAIT_MS). */
  eventOrderWaitMs: number;
  /** With REDIS_URL: how long the others hold the polls of a gracefully stopping process's queues for its return (EVENT_RESTART_WAIT_SECONDS). */
  eventRestartWaitSeconds: number;
  /** The rate limits (README.md "Rate limits"); `enabled` is false with RATE_LIMITS=off. */
  rateLimits: RateLimitsConfig;
  testControl: boolean;
  /** Largest file POST /user_uploads accepts, in bytes. */
  maxUploadBytes: number;
  /** Largest custom emoji image, in bytes. */
  maxEmojiBytes: number;
  /** Where uploaded files and custom emoji images are stored. */
  uploadsDir: string;
  /** POST /export/realm refuses organizations with more messages or upload bytes than these (EXPORT_MAX_MESSAGES, EXPORT_MAX_UPLOAD_BYTES; upstream's 250,000 and 10 GiB). */
  exportLimits: { maxMessages: number; maxUploadBytes: number };
  /** Uploads no message links are deleted after this many weeks. */
  unclaimedUploadWeeks: number;
  /** At most this many concurrent write transactions share one SQLite commit. */
  groupCommitMax: number;
  /** JSON answers of at least this many bytes are compressed when the client accepts it. */
  compressMinBytes: number;
  /** Page cache of each SQLite connection, in MiB. */
  sqliteCacheMb: number;
  /** SQL text of the compiled statements each SQLite connection keeps, in KiB. */
  sqliteStatementCacheKb: number;
  /** PostgreSQL: connections in the pool (PG_POOL_SIZE). */
  pgPoolSize: number;
  /** PostgreSQL: at most this many write transactions, or group-commit batches, at once (PG_WRITE_LANES). */
  pgWriteLanes: number;
  /** PostgreSQL: a further write lane opens only when the open ones have each been busy this long (PG_WRITE_LANE_WAIT_MS). */
  pgWriteLaneWaitMs: number;
  /** PostgreSQL: at most this many message-page query texts run as named statements (PG_NAMED_PAGE_QUERIES). */
  pgNamedPageQueries: number;
  /** Channels with more subscribers than this get no typing notifications (Zulip's 100). */
  typingMaxChannelSubscribers: number;
  /** Realms with more active users announce no one coming online (PRESENCE_EVENT_USER_LIMIT; Zulip's 100). */
  presenceEventUserLimit: number;
  /** How long a presence report that announces nothing may wait to be written with others (PRESENCE_WRITE_DELAY_MS; 0 writes each at once). */
  presenceWriteDelayMs: number;
  /** A scheduled message this many seconds late is failed rather than sent (Zulip's 10 minutes). */
  scheduledLateCutoffSeconds: number;
  /** At most this many alert words per user (every send matches its receivers' words). */
  maxAlertWordsPerUser: number;
  /** Characters of code one message may have syntax-highlighted; blocks past it render plain. */
  highlightMaxChars: number;
  /** How long an outgoing-webhook bot has to answer, in seconds (Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS, 10). */
  outgoingWebhookTimeoutSeconds: number;
  /** The wait before the first retry of a failed outgoing-webhook request, in ms; each later retry waits twice the one before. */
  outgoingWebhookRetryBaseMs: number;
  /** Non-public destinations outgoing webhooks may reach all the same (OUTGOING_HTTP_ALLOW; none by default). */
  outgoingHttpAllow: OutgoingAllowEntry[];
  /** The HTTP proxy outgoing webhooks go through, which then decides what they may reach (OUTGOING_HTTP_PROXY), or null. */
  outgoingHttpProxy: string | null;
  /** The push relay this server sends through (PUSH_RELAY_URL, PUSH_RELAY_ORG_ID, PUSH_RELAY_ORG_KEY), or null: push is off. */
  pushRelay: PushRelayConfig | null;
  /** How long a relay call may take (PUSH_RELAY_TIMEOUT_SECONDS; Zulip's 15 s). */
  pushRelayTimeoutSeconds: number;
  /** The first wait before a failed relay call is tried again; it doubles each time (PUSH_RELAY_RETRY_BASE_MS). */
  pushRelayRetryBaseMs: number;
  /**
   * Whether the push worker runs on a thread of its own (PUSH_WORKER=thread) rather than on the
   * request thread (inline). Default: a thread on PostgreSQL, where every query of a send waits
   * its turn on the event loop; inline on SQLite, whose one writer a second thread would contend
   * for (and whose queries never yield).
   */
  pushWorkerThread: boolean;
  /** Where email goes out (SMTP_URL, SMTP_FROM), or null: nothing is mailed (invitation links are shared by hand). */
  smtp: SmtpConfig | null;
  /** The first wait before a failed email is tried again; it doubles each time (EMAIL_RETRY_BASE_MS). */
  emailRetryBaseMs: number;
  /** At most this many email invitations per organization in 24 hours (INVITES_DAILY_MAX; 0: no limit). */
  invitesDailyMax: number;
  /** How long the link of a sign-up confirmation email works, in minutes (SIGNUP_CONFIRMATION_MINUTES). */
  signupConfirmationMinutes: number;
  /** How long a password reset link works, in minutes (PASSWORD_RESET_MINUTES). */
  passwordResetMinutes: number;
  /** How long the link confirming a new email address works, in minutes (EMAIL_CHANGE_CONFIRMATION_MINUTES). */
  emailChangeConfirmationMinutes: number;
  /** How long a browser login lasts, in days (SESSION_DAYS; Django's two weeks by default). */
  sessionDays: number;
  /**
   * PostgreSQL: a message id counts as settled (no send below it can still commit) this many
   * seconds after it was seen as the newest (UNREAD_SETTLE_SECONDS; actions/messages/unread-settle.ts).
   */
  unreadSettleSeconds: number;
};

/** The SMTP server email is sent through; `url` carries its credentials and is never logged. */
export type SmtpConfig = { url: string; from: string };

/** One rate-limit rule: at most `limit` counted requests per key in `windowSeconds` (limit 0: no limit). */
export type RateLimitRule = { limit: number; windowSeconds: number };

/** The rate-limit rules, named as Zulip's RATE_LIMITING_RULES. */
export type RateLimitsConfig = {
  enabled: boolean;
  /** Every authenticated API request, per user. */
  apiByUser: RateLimitRule;
  /** Every API request that is not authenticated (no or failed credentials), per client address. */
  apiByIp: RateLimitRule;
  /** Failed password logins (POST /fetch_api_key), per username. */
  authenticateByUsername: RateLimitRule;
  /** Unauthenticated requests that mail an address they were given, per client address. */
  sendsEmailByIp: RateLimitRule;
  /** Password reset requests, per address asked for: an hourly and a daily rule. */
  passwordResetByEmail: RateLimitRule[];
  /** Email address changes asked for, per user: an hourly and a daily rule. */
  emailChangeByUser: RateLimitRule[];
};

/** At most this many concurrent write transactions share one SQLite commit, unless configured. */
export const DEFAULT_GROUP_COMMIT_MAX = 64;

/** Page cache of each SQLite connection (the writer and the reader), in MiB, unless configured. */
export const DEFAULT_SQLITE_CACHE_MB = 64;

/**
 * SQL text of the compiled statements each SQLite connection keeps (store/engine/sqlite-statements.ts),
 * in KiB, unless configured. Compiled, they take 20 to 30 times as much native memory: at most
 * some 15 MiB per connection. A server runs a few hundred distinct statements, most under
 * 1 KiB of SQL.
 */
export const DEFAULT_SQLITE_STATEMENT_CACHE_KB = 512;

/**
 * PostgreSQL's pool, and how many of its connections may write at once (store/commit/pg-group-commit.ts;
 * the second only behind a slow batch, below). Two lanes rather than four: sends that wait for a
 * lane share its commit, and with several
 * processes each one sees a share of the load, so fewer lanes keep its batches large (the cluster
 * bench: CPU per send with three processes 0.90 -> 0.73 ms, with one 0.45 -> 0.41 ms).
 */
export const DEFAULT_PG_POOL_SIZE = 10;
export const DEFAULT_PG_WRITE_LANES = 2;
/**
 * A second write lane waits until the first has been busy this long. Opened at once, it starts a
 * small batch beside the first one's, with round trips of its own. Alternating runs of the cluster
 * bench's sends (median total CPU per send, four runs each): three processes 0.585 -> 0.439 ms and
 * p50 14.6 -> 10.9 ms, one process 0.307 -> 0.280 ms; one lane alone 0.386 and 0.214 ms. Long
 * enough that a lane working through an ordinary batch on a loaded machine gets no company.
 */
export const DEFAULT_PG_WRITE_LANE_WAIT_MS = 50;
/**
 * Message-page query texts (one per narrow shape and page size) a process runs as named
 * statements: a client uses a handful, and each holds a plan in every pooled connection.
 */
export const DEFAULT_PG_NAMED_PAGE_QUERIES = 32;

/**
 * One OUTGOING_HTTP_ALLOW entry: an address range (`cidr`, a single address as /32 or /128) or a
 * host name (`name`, lower case, as a URL names it), on one port or (null) any. Plain data: the
 * configuration is copied to the push worker's thread.
 */
export type OutgoingAllowEntry = { cidr: string; name: null; port: number | null } | { cidr: null; name: string; port: number | null };

/** A host name as URLs hold it: letters, digits and hyphens in dot-separated labels. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** One OUTGOING_HTTP_ALLOW entry: ADDRESS, ADDRESS/BITS or NAME, optionally with :PORT (an IPv6 address in brackets then). */
function outgoingAllowEntry(entry: string): OutgoingAllowEntry {
  const bad = () => new Error(`OUTGOING_HTTP_ALLOW must list addresses, CIDR ranges or host names, each optionally with :PORT, got ${JSON.stringify(entry)}`);
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const colons = entry.split(":").length - 1;
  // More than one colon and no brackets: a bare IPv6 address or range, without a port.
  const [host, portText] = bracketed ? [bracketed[1], bracketed[2]] : colons === 1 ? entry.split(":") : [entry, undefined];
  let port: number | null = null;
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) throw bad();
  }
  const [address, bits, ...rest] = host.split("/");
  if (net.isIP(address) !== 0) {
    // A zone (fe80::1%eth0) names an interface of this machine: no use in a rule about destinations.
    if (address.includes("%")) throw bad();
    // ipaddr.js checks the prefix length against the address family.
    if (rest.length > 0 || (bits !== undefined && (!/^\d{1,3}$/.test(bits) || !ipaddr.isValidCIDR(host)))) throw bad();
    // One address is kept as connections see it: an IPv4-mapped IPv6 address as its IPv4 address.
    const parsed = bits === undefined ? ipaddr.process(address) : ipaddr.parse(address);
    return { cidr: `${parsed.toString()}/${bits ?? (parsed.kind() === "ipv4" ? 32 : 128)}`, name: null, port };
  }
  const name = host.toLowerCase().replace(/\.$/, "");
  // A name whose last label is a number is an IPv4 address to a URL (http://10.1/ is 10.0.0.1): never a name.
  if (bracketed || bits !== undefined || !HOST_NAME.test(name) || /(^|\.)(\d+|0x[0-9a-f]*)$/.test(name)) throw bad();
  return { cidr: null, name, port };
}

/** OUTGOING_HTTP_PROXY: an http:// URL of the proxy itself (host and port, credentials allowed), no path. */
function outgoingHttpProxyEnv(env: NodeJS.ProcessEnv): string | null {
  const raw = env.OUTGOING_HTTP_PROXY ?? "";
  if (raw === "") return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  // The message leaves the value out: the URL may hold the proxy's password.
  if (url === null || url.protocol !== "http:" || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    throw new Error("OUTGOING_HTTP_PROXY must be an http://HOST:PORT URL");
  }
  return url.href;
}

/** The push relay's base URL and this server's credentials there (Zulip's ZULIP_SERVICES_URL, ZULIP_ORG_ID, ZULIP_ORG_KEY). */
export type PushRelayConfig = { url: string; orgId: string; orgKey: string };

/** All three PUSH_RELAY_* variables, or none; anything in between is a mistake worth stopping for. */
function loadPushRelay(env: NodeJS.ProcessEnv): PushRelayConfig | null {
  const url = env.PUSH_RELAY_URL ?? "";
  const orgId = env.PUSH_RELAY_ORG_ID ?? "";
  const orgKey = env.PUSH_RELAY_ORG_KEY ?? "";
  if (url === "" && orgId === "" && orgKey === "") return null;
  if (url === "" || orgId === "" || orgKey === "") throw new Error("PUSH_RELAY_URL, PUSH_RELAY_ORG_ID and PUSH_RELAY_ORG_KEY must be set together");
  if (!/^https?:\/\//.test(url)) throw new Error(`PUSH_RELAY_URL must be an http(s) URL, got ${JSON.stringify(url)}`);
  // The relay refuses a server id holding "@" (it would read as a user's email).
  if (orgId.includes("@")) throw new Error("PUSH_RELAY_ORG_ID must not contain @");
  return { url: url.replace(/\/+$/, ""), orgId, orgKey };
}

function loadSmtp(env: NodeJS.ProcessEnv, externalUrl: string): SmtpConfig | null {
  const url = env.SMTP_URL ?? "";
  if (url === "") return null;
  // The message names only the scheme: the URL holds the password.
  if (!/^smtps?:\/\/[^/]/.test(url)) throw new Error("SMTP_URL must be an smtp:// or smtps:// URL");
  return { url, from: env.SMTP_FROM || `noreply@${new URL(externalUrl).hostname}` };
}

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer of at least ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

// Zulip's DEFAULT_RATE_LIMITING_RULES (zproject/default_settings.py): api_by_user (60, 200),
// api_by_ip (60, 100), authenticate_by_username (1800, 5), sends_email_by_ip (86400, 5),
// password_reset_form_by_email and email_change_by_user ((3600, 2), (86400, 5)).
function loadRateLimits(env: NodeJS.ProcessEnv): RateLimitsConfig {
  return {
    enabled: env.RATE_LIMITS !== "off",
    apiByUser: { limit: intEnv(env, "RATE_LIMIT_API_PER_USER", 200), windowSeconds: intEnv(env, "RATE_LIMIT_API_PER_USER_WINDOW_SECONDS", 60, 1) },
    apiByIp: { limit: intEnv(env, "RATE_LIMIT_API_PER_IP", 100), windowSeconds: intEnv(env, "RATE_LIMIT_API_PER_IP_WINDOW_SECONDS", 60, 1) },
    authenticateByUsername: { limit: intEnv(env, "LOGIN_RATE_LIMIT", 5), windowSeconds: intEnv(env, "LOGIN_RATE_WINDOW_SECONDS", 1800, 1) },
    sendsEmailByIp: { limit: intEnv(env, "RATE_LIMIT_SENDS_EMAIL_PER_IP", 5), windowSeconds: intEnv(env, "RATE_LIMIT_SENDS_EMAIL_PER_IP_WINDOW_SECONDS", 86400, 1) },
    passwordResetByEmail: hourAndDay(env, "RATE_LIMIT_PASSWORD_RESET", 2, 5),
    emailChangeByUser: hourAndDay(env, "RATE_LIMIT_EMAIL_CHANGE", 2, 5),
  };
}

/** The rules `<PREFIX>_PER_HOUR` and `<PREFIX>_PER_DAY` (0: that window has no limit). */
function hourAndDay(env: NodeJS.ProcessEnv, prefix: string, perHour: number, perDay: number): RateLimitRule[] {
  return [
    { limit: intEnv(env, `${prefix}_PER_HOUR`, perHour), windowSeconds: 3600 },
    { limit: intEnv(env, `${prefix}_PER_DAY`, perDay), windowSeconds: 86400 },
  ];
}

function pushWorkerThread(env: NodeJS.ProcessEnv): boolean {
  const choice = env.PUSH_WORKER || (env.DATABASE_URL ? "thread" : "inline");
  if (choice !== "thread" && choice !== "inline") throw new Error(`PUSH_WORKER must be "thread" or "inline", not ${JSON.stringify(choice)}`);
  return choice === "thread";
}

/** TRUSTED_PROXIES: comma-separated addresses or CIDR ranges (127.0.0.1, 10.0.0.0/8, ::1). */
function trustedProxiesEnv(env: NodeJS.ProcessEnv): string[] {
  const entries = (env.TRUSTED_PROXIES ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "");
  for (const entry of entries) {
    const [address = "", bits, ...rest] = entry.split("/");
    const family = net.isIP(address);
    const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || rest.length > 0) throw new Error(`TRUSTED_PROXIES must list IP addresses or CIDR ranges, got ${JSON.stringify(entry)}`);
  }
  return entries;
}

/** PROCESS_ID: it names the process in queue ids (before the ':'), saved-queue file names and nginx's map. */
function processIdEnv(env: NodeJS.ProcessEnv): string | null {
  const raw = env.PROCESS_ID;
  if (raw === undefined || raw === "") return null;
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(raw)) throw new Error(`PROCESS_ID must be 1 to 32 letters, digits, '-' or '_', got ${JSON.stringify(raw)}`);
  return raw;
}

/** Whether HOST listens on every address (then other processes on this machine use the loopback). */
function wildcardHost(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** Builds the configuration from an environment (process.env by default). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || "127.0.0.1";
  const port = intEnv(env, "PORT", 9991);
  const externalUrl = (env.EXTERNAL_URL || `http://${host}:${port}`).replace(/\/+$/, "");
  return {
    host,
    port,
    dataDir: path.resolve(env.DATA_DIR || "./data"),
    databaseUrl: env.DATABASE_URL || null,
    redisUrl: env.REDIS_URL || null,
    trustedProxies: trustedProxiesEnv(env),
    processId: processIdEnv(env),
    internalUrl: (env.INTERNAL_URL || `http://${wildcardHost(host) ? "127.0.0.1" : host}:${port}`).replace(/\/+$/, ""),
    externalUrl,
    realmName: env.REALM_NAME || "Parley",
    ownerEmail: env.OWNER_EMAIL || "owner@parley.local",
    logLevel: env.LOG_LEVEL || "info",
    // 25 MiB, like Zulip's nginx default, so uploads of ordinary size pass.
    maxBodyBytes: intEnv(env, "MAX_BODY_BYTES", 25 * 1024 * 1024),
    // SPEC.md: a queue idle for 10 minutes is collected; heartbeats every minute.
    queueIdleSeconds: intEnv(env, "EVENT_QUEUE_IDLE_SECONDS", 600),
    heartbeatSeconds: intEnv(env, "EVENT_HEARTBEAT_SECONDS", 60),
    eventQueuesDir: path.resolve(env.EVENT_QUEUES_DIR || env.DATA_DIR || "./data"),
    eventBacklogLength: intEnv(env, "EVENT_BACKLOG_LENGTH", 10_000, 1),
    eventOrderWaitMs: intEnv(env, "EVENT_ORDER_WAIT_MS", 1000),
    eventRestartWaitSeconds: intEnv(env, "EVENT_RESTART_WAIT_SECONDS", 60),
    rateLimits: loadRateLimits(env),
    testControl: env.PARLEY_TEST_CONTROL === "1",
    // 25 MiB, the default body limit: a larger upload could not arrive anyway.
    maxUploadBytes: intEnv(env, "MAX_UPLOAD_BYTES", 25 * 1024 * 1024),
    // 5 MiB, Zulip's MAX_EMOJI_FILE_SIZE_MIB default.
    maxEmojiBytes: intEnv(env, "MAX_EMOJI_BYTES", 5 * 1024 * 1024),
    uploadsDir: path.resolve(env.UPLOADS_DIR || path.join(env.DATA_DIR || "./data", "uploads")),
    exportLimits: { maxMessages: intEnv(env, "EXPORT_MAX_MESSAGES", 250_000), maxUploadBytes: intEnv(env, "EXPORT_MAX_UPLOAD_BYTES", 10 * 1024 * 1024 * 1024) },
    // Zulip deletes never-linked uploads after three weeks.
    unclaimedUploadWeeks: intEnv(env, "UNCLAIMED_UPLOAD_WEEKS", 3),
    groupCommitMax: intEnv(env, "SQLITE_GROUP_COMMIT_MAX", DEFAULT_GROUP_COMMIT_MAX),
    // About one network packet: smaller answers gain little and pay the work.
    compressMinBytes: intEnv(env, "COMPRESS_MIN_BYTES", 1024),
    sqliteCacheMb: intEnv(env, "SQLITE_CACHE_MB", DEFAULT_SQLITE_CACHE_MB),
    sqliteStatementCacheKb: intEnv(env, "SQLITE_STATEMENT_CACHE_KB", DEFAULT_SQLITE_STATEMENT_CACHE_KB, 1),
    pgPoolSize: intEnv(env, "PG_POOL_SIZE", DEFAULT_PG_POOL_SIZE, 2),
    pgWriteLanes: intEnv(env, "PG_WRITE_LANES", DEFAULT_PG_WRITE_LANES, 1),
    pgWriteLaneWaitMs: intEnv(env, "PG_WRITE_LANE_WAIT_MS", DEFAULT_PG_WRITE_LANE_WAIT_MS),
    pgNamedPageQueries: intEnv(env, "PG_NAMED_PAGE_QUERIES", DEFAULT_PG_NAMED_PAGE_QUERIES),
    typingMaxChannelSubscribers: intEnv(env, "TYPING_MAX_CHANNEL_SUBSCRIBERS", 100),
    presenceEventUserLimit: intEnv(env, "PRESENCE_EVENT_USER_LIMIT", 100),
    presenceWriteDelayMs: intEnv(env, "PRESENCE_WRITE_DELAY_MS", 1000),
    scheduledLateCutoffSeconds: intEnv(env, "SCHEDULED_MESSAGE_LATE_CUTOFF_SECONDS", 600),
    maxAlertWordsPerUser: intEnv(env, "MAX_ALERT_WORDS_PER_USER", 1000),
    // Same as markdown/code.ts's DEFAULT_HIGHLIGHT_MAX_CHARS (config imports no other module).
    highlightMaxChars: intEnv(env, "HIGHLIGHT_MAX_CHARS", 4000),
    outgoingWebhookTimeoutSeconds: intEnv(env, "OUTGOING_WEBHOOK_TIMEOUT_SECONDS", 10, 1),
    outgoingWebhookRetryBaseMs: intEnv(env, "OUTGOING_WEBHOOK_RETRY_BASE_MS", 5000),
    outgoingHttpAllow: (env.OUTGOING_HTTP_ALLOW ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "").map(outgoingAllowEntry),
    outgoingHttpProxy: outgoingHttpProxyEnv(env),
    pushRelay: loadPushRelay(env),
    pushRelayTimeoutSeconds: intEnv(env, "PUSH_RELAY_TIMEOUT_SECONDS", 15, 1),
    pushRelayRetryBaseMs: intEnv(env, "PUSH_RELAY_RETRY_BASE_MS", 10_000),
    pushWorkerThread: pushWorkerThread(env),
    smtp: loadSmtp(env, externalUrl),
    emailRetryBaseMs: intEnv(env, "EMAIL_RETRY_BASE_MS", 60_000),
    // Zulip's INVITES_DEFAULT_REALM_DAILY_MAX.
    invitesDailyMax: intEnv(env, "INVITES_DAILY_MAX", 100),
    // Zulip's CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS (1).
    signupConfirmationMinutes: intEnv(env, "SIGNUP_CONFIRMATION_MINUTES", 24 * 60, 1),
    // About an hour, as the issue asked (Django's PASSWORD_RESET_TIMEOUT is three days).
    passwordResetMinutes: intEnv(env, "PASSWORD_RESET_MINUTES", 60, 1),
    // Zulip's CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS (1), as its email change confirmations.
    emailChangeConfirmationMinutes: intEnv(env, "EMAIL_CHANGE_CONFIRMATION_MINUTES", 24 * 60, 1),
    sessionDays: intEnv(env, "SESSION_DAYS", 14, 1),
    unreadSettleSeconds: intEnv(env, "UNREAD_SETTLE_SECONDS", 60),
  };
}
