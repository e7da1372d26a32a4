/**
 * GET /streams/{stream_id}/email_address (Zulip's get_stream_email_address): the address that
 * posts to a channel, `<channel-slug>.<token>.show-sender@<host>`, as upstream's email gateway
 * formats it. Parley has no email gateway yet; the tokens are stored so addresses stay stable.
 */
import { JsonableError } from "../../errors.ts";
import { accessStreamById } from "../../permissions/stream-access.ts";
import { randomAlphanumeric } from "../../secrets.ts";
import { emailDomain } from "../../model/emails.ts";
import { streamEmailToken } from "../../store/channels/stream-email.ts";
import { getUser } from "../../store/users/users.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";

/** Token length, as upstream's (32 characters, 128 bits and more). */
const TOKEN_LENGTH = 32;
/** The sender id stored for the email gateway itself (upstream's default sender, its Email Gateway bot). */
const GATEWAY_SENDER = 0;

/** Upstream's encode_email_address_helper: every run of non-word characters becomes one hyphen, lowercased, trimmed of hyphens. */
export function channelEmailAddress(channelName: string, token: string, host: string): string {
  const slug = channelName.replace(/[^\p{L}\p{N}_]+/gu, "-").toLowerCase().replace(/^-+|-+$/g, "");
  return `${slug ? `${slug}.` : ""}${token}.show-sender@${host}`;
}

/** The sender the address posts as: the caller, a bot the caller owns, or the gateway (the default). */
async function checkSender(ctx: AuthedCtx, senderId: number | undefined): Promise<number> {
  if (senderId === undefined || senderId === GATEWAY_SENDER) return GATEWAY_SENDER;
  if (senderId === ctx.actor.id) return senderId;
  const sender = await getUser(ctx.db, ctx.realm.id, senderId);
  if (!sender || sender.is_active !== 1 || sender.is_bot !== 1 || sender.bot_owner_id !== ctx.actor.id) throw new JsonableError(`Invalid user ID: ${senderId}`);
  return senderId;
}

/** The channel's email address for the caller and sender (FL 226; `sender_id` FL 335). */
export async function getStreamEmailAddress(ctx: AuthedCtx, streamId: number, input: { sender_id?: number }): Promise<{ email: string }> {
  const { stream } = await accessStreamById(ctx, streamId);
  const senderId = await checkSender(ctx, input.sender_id);
  const key = { realmId: ctx.realm.id, streamId: stream.id, creatorId: ctx.actor.id, senderId };
  const token = await withTransaction(ctx, (tx) => streamEmailToken(tx, key, randomAlphanumeric(TOKEN_LENGTH).toLowerCase()));
  return { email: channelEmailAddress(stream.name, token, emailDomain(ctx.config.externalUrl)) };
}
