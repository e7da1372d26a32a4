/**
 * The realm's system bots (Zulip's REALM_INTERNAL_BOTS: the Notification Bot, the Welcome Bot):
 * each found by its address, or created as a generic bot the first time it is needed (and then
 * announced as POST /bots announces a bot, so open clients know who sent its messages), and the
 * one way to send a direct message as one of them (Zulip's internal_send_private_message).
 */
import { JsonableError } from "../../errors.ts";
import { ROLE } from "../../model/roles.ts";
import { emailDomain } from "../../model/emails.ts";
import type { Db } from "../../store/schema/types.ts";
import type { UserRow } from "../../store/schema/database.ts";
import { getUserByDeliveryEmail } from "../../store/users/users.ts";
import { doEnv, type ActionCtx, type DoEnv } from "../context.ts";
import { emitBotCreated } from "../users/bots.ts";
import { doCreateUser } from "../users/create.ts";
import { checkMessage, doSendMessage, type SendRequest } from "./send.ts";

/** Each system bot's address (`<local part>@<host>`) and name, as upstream names them. */
const SYSTEM_BOTS = {
  notification: { localPart: "notification-bot", fullName: "Notification Bot" },
  welcome: { localPart: "welcome-bot", fullName: "Welcome Bot" },
} as const;

/** One of the realm's system bots. */
export type SystemBot = keyof typeof SYSTEM_BOTS;

/** Generic bots (Zulip's DEFAULT_BOT type). */
const GENERIC_BOT = 1;

function systemBotEmail(env: Pick<ActionCtx, "config">, bot: SystemBot): string {
  return `${SYSTEM_BOTS[bot].localPart}@${emailDomain(env.config.externalUrl)}`;
}

/** The realm's system bot if it exists yet. */
export function findSystemBot(env: Pick<ActionCtx, "config" | "realm">, db: Db, bot: SystemBot): Promise<UserRow | undefined> {
  return getUserByDeliveryEmail(db, env.realm.id, systemBotEmail(env, bot));
}

/** The realm's system bot, created (and announced) in `tx` the first time it is needed. */
export async function systemBot(env: DoEnv, tx: Db, bot: SystemBot): Promise<UserRow> {
  const existing = await findSystemBot(env, tx, bot);
  if (existing) return existing;
  const created = await doCreateUser(tx, env, { email: systemBotEmail(env, bot), fullName: SYSTEM_BOTS[bot].fullName, role: ROLE.member, botType: GENERIC_BOT });
  await emitBotCreated(tx, env, created, env.emit);
  return created;
}

/** How a system bot's direct message is received. */
export type SystemMessageMarks = {
  /** Starred for the recipient (the Welcome Bot's messages to a new user, as upstream stars them). */
  starred?: boolean;
  /** No phone notification (upstream's disable_external_notifications: seen in the app, in context). */
  quiet?: boolean;
};

/**
 * Checks `recipient`'s direct message from the system bot, ready to send in `tx`; throws the
 * first refusal (`content` too long, say).
 */
export async function checkSystemDirectMessage(tx: Db, env: DoEnv, bot: SystemBot, recipient: UserRow, content: string, marks: SystemMessageMarks = {}): Promise<{ botEnv: DoEnv; request: SendRequest }> {
  const botEnv = doEnv(env, env.emit, await systemBot(env, tx, bot), "Internal");
  const request = await checkMessage(botEnv, tx, {
    addressee: { type: "private", to: [recipient] },
    content,
    readBySender: true,
    systemBot: true,
    starredFor: marks.starred ? [recipient.id] : undefined,
    externalNotifications: marks.quiet !== true,
  });
  return { botEnv, request };
}

/**
 * Sends `recipient` a direct message from the system bot inside the caller's transaction
 * (Zulip's internal_send_private_message); returns its id, or null when it failed its checks
 * (logged and skipped, as upstream's internal sends).
 */
export async function doSendSystemDirectMessage(tx: Db, env: DoEnv, bot: SystemBot, recipient: UserRow, content: string, marks: SystemMessageMarks = {}): Promise<number | null> {
  let checked: { botEnv: DoEnv; request: SendRequest };
  try {
    checked = await checkSystemDirectMessage(tx, env, bot, recipient, content, marks);
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
    env.log.warn({ userId: recipient.id, bot, reason: err.message }, "system bot direct message skipped");
    return null;
  }
  return (await doSendMessage(tx, checked.botEnv, checked.request)).id;
}
