/** The admin commands: each validates its options, then calls the trusted primitives. */
import type { Kysely } from "kysely";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import {
  BOT_TYPE, CAN_CHANGE_USER_EMAILS, doCreateBot, doDeactivateUser, doRegenerateApiKey, doSetPassword, doSetUserFlagSetting,
} from "../actions/users/credentials.ts";
import { doCreateUser, doSetCanCreateUsers, type CreatedUser } from "../actions/users/create.ts";
import { setTimeout as delay } from "node:timers/promises";
import { actionCtx, doEnv, standaloneDeps, withTransaction, type ServerDeps } from "../actions/context.ts";
import { doWelcomeNewUser } from "../actions/onboarding/welcome-bot.ts";
import type { Store } from "../store/db.ts";
import { makeLogger } from "../log.ts";
import { registerWithRelay } from "../actions/push/server-registration.ts";
import { ROLE, ROLE_BY_NAME } from "../model/roles.ts";
import type { Database, RealmRow, UserRow } from "../store/schema/database.ts";
import { countActiveHumanOwners, getUserByDeliveryEmail, listUsers } from "../store/users/users.ts";
import { countEmailJobsTo } from "../store/users/email-jobs.ts";
import { doSendPasswordReset } from "../actions/users/password-reset.ts";
import { startEmailWorker } from "../actions/email/worker.ts";
import { CliError, type OptionSpecs } from "./args.ts";
import { emailDomain } from "../model/emails.ts";

/** What a command runs against: the store, the default realm, and its terminal. */
export type AdminEnv = {
  db: Kysely<Database>;
  /** The whole store, for commands that run actions (standaloneDeps). */
  store: Store;
  realm: RealmRow;
  config: Config;
  clock: Clock;
  /** Prints one JSON value (or a bare string) on stdout. */
  print(value: unknown): void;
  /** Prints a note for the operator on stderr. */
  warn(message: string): void;
  /** Reads one line from stdin (a password: never taken from argv). */
  readLine(prompt: string): Promise<string>;
};

/** One admin command. */
export type Command = { summary: string; options: OptionSpecs; run(env: AdminEnv, opts: Record<string, string | undefined>): Promise<void> };

// Zulip's limit on full names (MAX_NAME_LENGTH).
const MAX_NAME_LENGTH = 100;
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;
const SHORT_NAME_SHAPE = /^[a-z0-9._-]+$/i;

function requireOpt(opts: Record<string, string | undefined>, name: string): string {
  const value = opts[name];
  if (value === undefined) throw new CliError(`missing required option --${name}`, 2);
  return value;
}

function checkEmail(email: string): string {
  if (!EMAIL_SHAPE.test(email)) throw new CliError(`'${email}' is not a valid email address`, 2);
  return email;
}

function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name === "") throw new CliError("--full-name must not be empty", 2);
  if (name.length > MAX_NAME_LENGTH) throw new CliError(`--full-name is too long (limit: ${MAX_NAME_LENGTH} characters)`, 2);
  return name;
}

async function existingUser(env: AdminEnv, email: string): Promise<UserRow> {
  const user = await getUserByDeliveryEmail(env.db, env.realm.id, email);
  if (!user) throw new CliError(`no user with email '${email}' in organization '${env.realm.name}'`);
  return user;
}

async function checkEmailFree(env: AdminEnv, email: string): Promise<void> {
  if (await getUserByDeliveryEmail(env.db, env.realm.id, email)) throw new CliError(`Email '${email}' already in use`);
}

function credentials(user: CreatedUser): { user_id: number; email: string; api_key: string } {
  return { user_id: user.id, email: user.delivery_email, api_key: user.api_key };
}

const createUser: Command = {
  summary: "create a user and print its user_id, email and api_key",
  options: {
    email: { required: true, help: "login email" },
    "full-name": { required: true, help: "display name" },
    role: { choices: ["owner", "admin", "moderator", "member", "guest"], help: "role (default member)" },
    password: { help: "password for POST /fetch_api_key (default: none; see set-password)" },
  },
  async run(env, opts) {
    const email = checkEmail(requireOpt(opts, "email"));
    const fullName = checkFullName(requireOpt(opts, "full-name"));
    const role = ROLE_BY_NAME[opts.role ?? "member"];
    if (opts.password === "") throw new CliError("--password must not be empty", 2);
    await checkEmailFree(env, email);
    const ctx = actionCtx(standaloneDeps(env.store, env.config, env.clock, makeLogger(env.config, true)), { realm: env.realm, actor: null, client: "Internal" });
    const user = await withTransaction(ctx, async (tx, emit) => {
      const created = await doCreateUser(tx, env, { email, fullName, role, password: opts.password ?? null });
      // Upstream's manage.py create_user goes through do_create_user too: the Welcome Bot greets the new person.
      await doWelcomeNewUser(tx, doEnv(ctx, emit), created);
      return created;
    });
    env.print(credentials(user));
  },
};

const createBot: Command = {
  summary: "create a bot owned by a user and print its user_id, email and api_key",
  options: {
    owner: { required: true, help: "email of the bot's owner" },
    "full-name": { required: true, help: "display name" },
    "short-name": { required: true, help: "the bot's email is <short-name>-bot@<host>" },
    type: { choices: Object.keys(BOT_TYPE), help: "bot type (default generic)" },
    "service-url": { help: "outgoing bots: the URL messages are posted to" },
  },
  async run(env, opts) {
    const fullName = checkFullName(requireOpt(opts, "full-name"));
    const shortName = requireOpt(opts, "short-name");
    if (!SHORT_NAME_SHAPE.test(shortName)) throw new CliError("--short-name may contain only letters, digits, '.', '_' and '-'", 2);
    const type = opts.type === "incoming" ? "incoming" : opts.type === "outgoing" ? "outgoing" : "generic";
    const serviceUrl = checkServiceUrl(type, opts["service-url"]);
    const owner = await existingUser(env, requireOpt(opts, "owner"));
    if (owner.is_active !== 1) throw new CliError(`the owner '${owner.delivery_email}' is deactivated`);
    if (owner.is_bot === 1) throw new CliError("a bot cannot own another bot");
    // The host name without a port, as POST /bots does: a ':' in an email breaks Basic auth.
    const email = `${shortName}-bot@${emailDomain(env.config.externalUrl)}`;
    if (await getUserByDeliveryEmail(env.db, env.realm.id, email)) throw new CliError(`Username already in use: '${email}'`);
    const bot = await env.db.transaction().execute((tx) =>
      doCreateBot(tx, env, { email, fullName, botType: BOT_TYPE[type], ownerId: owner.id, serviceUrl }),
    );
    env.print(credentials(bot));
  },
};

function checkServiceUrl(type: keyof typeof BOT_TYPE, raw: string | undefined): string | null {
  if (type !== "outgoing") {
    if (raw !== undefined) throw new CliError("--service-url is only for --type outgoing", 2);
    return null;
  }
  if (raw === undefined) throw new CliError("outgoing bots need --service-url", 2);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--service-url '${raw}' is not a URL`, 2);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CliError("--service-url must be an http or https URL", 2);
  return raw;
}

const emailOnly: OptionSpecs = { email: { required: true, help: "the user's email" } };

const apiKey: Command = {
  summary: "print a user's API key",
  options: emailOnly,
  async run(env, opts) {
    env.print((await existingUser(env, requireOpt(opts, "email"))).api_key);
  },
};

const regenerateApiKey: Command = {
  summary: "replace a user's API key (the old one stops working) and print the new one",
  options: emailOnly,
  async run(env, opts) {
    const user = await existingUser(env, requireOpt(opts, "email"));
    env.print(await doRegenerateApiKey(env.db, env, user));
  },
};

const deactivateUser: Command = {
  summary: "deactivate a user and the bots they own",
  options: emailOnly,
  async run(env, opts) {
    const user = await existingUser(env, requireOpt(opts, "email"));
    if (user.is_active !== 1) throw new CliError(`'${user.delivery_email}' is already deactivated`);
    if (user.role === ROLE.owner && user.is_bot === 0 && (await countActiveHumanOwners(env.db, env.realm.id)) <= 1) {
      throw new CliError("Cannot deactivate the only organization owner.");
    }
    const ids = await env.db.transaction().execute((tx) => doDeactivateUser(tx, env, user));
    env.print({ user_id: user.id, email: user.delivery_email, deactivated_user_ids: ids });
  },
};

const setPassword: Command = {
  summary: "set a user's password, read as one line from stdin",
  options: emailOnly,
  async run(env, opts) {
    const user = await existingUser(env, requireOpt(opts, "email"));
    if (user.is_bot === 1) throw new CliError("bots log in with their API key and have no password");
    const password = await env.readLine("New password: ");
    if (password === "") throw new CliError("the password read from stdin is empty", 2);
    await doSetPassword(env.db, env, user, password);
    env.print({ user_id: user.id, email: user.delivery_email });
  },
};

const grantEmailChange: Command = {
  summary: "let an owner change other users' emails (the can_change_user_emails permission)",
  options: emailOnly,
  async run(env, opts) {
    const user = await existingUser(env, requireOpt(opts, "email"));
    if (user.role !== ROLE.owner) env.warn(`note: '${user.delivery_email}' is not an owner; the permission takes effect only for owners`);
    await doSetUserFlagSetting(env.db, env, user, CAN_CHANGE_USER_EMAILS, true);
    env.print({ user_id: user.id, email: user.delivery_email, [CAN_CHANGE_USER_EMAILS]: true });
  },
};

/** grant-create-users / revoke-create-users: Zulip's `change_user_role <email> can_create_users [--revoke]`. */
function setCreateUsers(allowed: boolean): Command {
  return {
    summary: allowed
      ? "let an administrator (or an administrator bot) create users with POST /users (the can_create_users permission)"
      : "take the can_create_users permission away",
    options: emailOnly,
    async run(env, opts) {
      const user = await existingUser(env, requireOpt(opts, "email"));
      if (allowed && user.role !== ROLE.owner && user.role !== ROLE.administrator) {
        env.warn(`note: '${user.delivery_email}' is not an administrator; the permission takes effect only for administrators`);
      }
      await doSetCanCreateUsers(env.db, env, user, allowed);
      env.print({ user_id: user.id, email: user.delivery_email, can_create_users: allowed });
    },
  };
}

/** register-push-server: Zulip's `register_server`, with PUSH_RELAY_URL, PUSH_RELAY_ORG_ID and PUSH_RELAY_ORG_KEY from the environment. */
const registerPushServer: Command = {
  summary: "register this server with the push relay (PUSH_RELAY_URL, PUSH_RELAY_ORG_ID, PUSH_RELAY_ORG_KEY) so its organizations can push",
  options: {
    "contact-email": { required: true, help: "where the relay's operators can reach this server's administrator" },
    hostname: { help: "this server's host name (default: the host of EXTERNAL_URL)" },
  },
  async run(env, opts) {
    const relay = env.config.pushRelay;
    if (relay === null) throw new CliError("set PUSH_RELAY_URL, PUSH_RELAY_ORG_ID and PUSH_RELAY_ORG_KEY first", 2);
    const contactEmail = checkEmail(requireOpt(opts, "contact-email"));
    const hostname = opts.hostname ?? new URL(env.config.externalUrl).host;
    const result = await registerWithRelay(relay, { hostname, contactEmail }, env.config.pushRelayTimeoutSeconds);
    if (!result.ok) throw new CliError(`registration failed: ${result.reason}`);
    env.print({ relay: relay.url, server_id: relay.orgId, hostname, created: result.created });
  },
};

/** How long send-password-resets waits for its emails to go out before leaving the rest to the server's email worker. */
const SEND_WAIT_MS = 60_000;
const SEND_POLL_MS = 100;

/** The users send-password-resets mails: one by address, or every active human; then only those who never logged in, if asked. */
async function passwordResetRecipients(env: AdminEnv, opts: Record<string, string | undefined>): Promise<UserRow[]> {
  const all = opts["all-users"] === "true";
  const neverLoggedIn = opts["only-never-logged-in"] === "true";
  if (opts.email !== undefined && all) throw new CliError("pass --email or --all-users, not both", 2);
  if (opts.email === undefined && !all && !neverLoggedIn) throw new CliError("pass --email E, --all-users or --only-never-logged-in", 2);
  let users: UserRow[];
  if (opts.email !== undefined) {
    const user = await existingUser(env, opts.email);
    if (user.is_bot === 1) throw new CliError("bots log in with their API key and have no password");
    if (user.is_active !== 1) throw new CliError(`'${user.delivery_email}' is deactivated`);
    users = [user];
  } else {
    users = (await listUsers(env.db, env.realm.id)).filter((u) => u.is_active === 1 && u.is_bot === 0);
  }
  return neverLoggedIn ? users.filter((u) => u.last_login === null) : users;
}

/**
 * Sends queued email from this process until none to `addresses` waits or SEND_WAIT_MS pass;
 * returns how many still wait (the server's email worker sends them).
 */
async function sendNow(deps: ServerDeps, realmId: number, addresses: string[]): Promise<number> {
  const worker = startEmailWorker(deps);
  const waiting = () => countEmailJobsTo(deps.store.reader, realmId, addresses);
  if (!worker) return waiting();
  const deadline = Date.now() + SEND_WAIT_MS;
  let left = await waiting();
  try {
    while (left > 0 && Date.now() < deadline) {
      await delay(SEND_POLL_MS);
      left = await waiting();
    }
  } finally {
    await worker.stop();
  }
  return left;
}

/**
 * send-password-resets: Zulip's send_password_reset_email (after an import, whose users arrive
 * without passwords): mails each chosen user a password reset link, as the reset form does but
 * with no limit, and sends the emails from here rather than waiting for the server's worker.
 */
const sendPasswordResets: Command = {
  summary: "mail password reset links (needs SMTP_URL) to one user, to every user, or to those who never logged in; prints who was mailed",
  options: {
    email: { help: "the one user to mail" },
    "all-users": { flag: true, help: "every active user (not bots)" },
    "only-never-logged-in": { flag: true, help: "only users who never logged in (alone: among every active user)" },
  },
  async run(env, opts) {
    if (env.config.smtp === null) throw new CliError("set SMTP_URL first: the links go out by email", 2);
    const users = await passwordResetRecipients(env, opts);
    const deps = standaloneDeps(env.store, env.config, env.clock, makeLogger(env.config, true));
    const ctx = actionCtx(deps, { realm: env.realm, actor: null, client: "Internal" });
    await withTransaction(ctx, async (tx, emit) => {
      for (const user of users) await doSendPasswordReset(tx, doEnv(ctx, emit), user);
    });
    const emails = users.map((u) => u.delivery_email);
    const queued = await sendNow(deps, env.realm.id, emails);
    if (queued > 0) env.warn(`note: ${queued} email(s) not sent yet; the server's email worker sends them`);
    env.print({ emails, sent: Math.max(0, emails.length - queued), queued });
  },
};

/** Every admin command by name (`serve` is handled by cli.ts). */
export const COMMANDS: Record<string, Command> = {
  "create-user": createUser,
  "create-bot": createBot,
  "api-key": apiKey,
  "regenerate-api-key": regenerateApiKey,
  "deactivate-user": deactivateUser,
  "set-password": setPassword,
  "grant-email-change": grantEmailChange,
  "grant-create-users": setCreateUsers(true),
  "revoke-create-users": setCreateUsers(false),
  "register-push-server": registerPushServer,
  "send-password-resets": sendPasswordResets,
};
