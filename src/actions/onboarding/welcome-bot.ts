/**
 * The Welcome Bot (Zulip's zerver/lib/onboarding.py, send_initial_direct_messages_to_user): every
 * new person gets a short direct message from it when their account is created, then, when one
 * applies, the organization's custom welcome text (FL 416) as a second message, both starred for
 * them and without phone notifications. Administrators preview the custom text with
 * POST /realm/test_welcome_bot_custom_message.
 */
import { JsonableError } from "../../errors.ts";
import { unusedFence } from "../../markdown/link-syntax.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { realmSettings } from "../../permissions/realm-settings.ts";
import type { UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { doEnv, withTransaction, type AuthedCtx, type DoEnv } from "../context.ts";
import { checkSystemDirectMessage, doSendSystemDirectMessage } from "../messages/system-bots.ts";
import { doSendMessage } from "../messages/send.ts";

/** The Welcome Bot's first message to `user`: where things are, how to reply, and (administrators) where to start. */
function introduction(env: Pick<DoEnv, "realm">, user: UserRow): string {
  const lines = [
    `Hi ${user.full_name}, welcome to ${env.realm.name}! I'm the Welcome Bot, and this conversation is just between us.`,
    "",
    "A few things to get you going:",
    "- **Channels** hold the conversations, and every conversation in a channel has a **topic**. Your channels are listed on the left; the combined feed shows them all at once.",
    "- To **reply**, select a message and press `r` (or Enter). `c` writes in the conversation you are looking at, `x` starts a direct message, and `n` takes you to the next unread topic.",
    "- Press `/` to **search**, and Esc to go back.",
    "- **Starred messages**, such as this one, wait for you under Starred messages.",
  ];
  if (isRealmAdmin(user)) {
    lines.push("", "As an administrator, you can invite people from the settings (Invite people), and set the welcome note I send everyone who joins in the organization settings.");
  }
  return lines.join("\n");
}

/** The custom welcome text as the Welcome Bot sends it: said to come from the administrators, and quoted whole. */
export function customWelcomeMessage(env: Pick<DoEnv, "realm">, text: string): string {
  const fence = unusedFence(text);
  return `Here is a note for you from the administrators of ${env.realm.name}:\n${fence}quote\n${text}\n${fence}`;
}

/** Zulip's process_new_human_user: an invitation's own text when it has one (even ""), else the organization's. */
function welcomeTextFor(env: Pick<DoEnv, "realm">, invitationText: string | null): string {
  return invitationText ?? realmSettings(env.realm).welcome_message_custom_text;
}

/** The ids of the welcome messages sent (null: not sent). */
export type WelcomeMessageIds = { introduction: number | null; custom: number | null };

/**
 * Sends a new person (not a bot) the Welcome Bot's messages inside the caller's transaction: the
 * introduction, then the custom text that applies (`invitationText`: the invitation's, null for
 * none or no invitation). Checks nothing; a message that fails its checks is logged and skipped.
 */
export async function doWelcomeNewUser(tx: Db, env: DoEnv, user: UserRow, invitationText: string | null = null): Promise<WelcomeMessageIds> {
  const marks = { starred: true, quiet: true };
  const intro = await doSendSystemDirectMessage(tx, env, "welcome", user, introduction(env, user), marks);
  const text = welcomeTextFor(env, invitationText);
  const custom = text === "" ? null : await doSendSystemDirectMessage(tx, env, "welcome", user, customWelcomeMessage(env, text), marks);
  return { introduction: intro, custom };
}

/**
 * POST /realm/test_welcome_bot_custom_message (FL 416): the Welcome Bot sends the acting
 * administrator the custom text as a new user would get it (only that message), to preview it.
 */
export async function testWelcomeBotCustomMessage(ctx: AuthedCtx, input: { welcome_message_custom_text: string }): Promise<{ message_id: number }> {
  const text = input.welcome_message_custom_text;
  if (text.length === 0) throw new JsonableError("Message must not be empty");
  return withTransaction(ctx, async (tx, emit) => {
    const env = doEnv(ctx, emit);
    const { botEnv, request } = await checkSystemDirectMessage(tx, env, "welcome", ctx.actor, customWelcomeMessage(env, text), { quiet: true });
    return { message_id: (await doSendMessage(tx, botEnv, request)).id };
  });
}
