/** Tokens of channel email addresses (Zulip's ChannelEmailAddress). */
import type { Db } from "../schema/types.ts";

/**
 * The token for a channel, requester and sender: the stored one, else `fresh` stored now (a
 * concurrent request storing first wins, and its token is returned).
 */
export async function streamEmailToken(db: Db, key: { realmId: number; streamId: number; creatorId: number; senderId: number }, fresh: string): Promise<string> {
  const find = () =>
    db
      .selectFrom("stream_email_addresses")
      .select("email_token")
      .where("realm_id", "=", key.realmId)
      .where("stream_id", "=", key.streamId)
      .where("creator_id", "=", key.creatorId)
      .where("sender_id", "=", key.senderId)
      .executeTakeFirst();
  const existing = await find();
  if (existing) return existing.email_token;
  await db
    .insertInto("stream_email_addresses")
    .values({ realm_id: key.realmId, stream_id: key.streamId, creator_id: key.creatorId, sender_id: key.senderId, email_token: fresh })
    .onConflict((oc) => oc.columns(["stream_id", "creator_id", "sender_id"]).doNothing())
    .execute();
  return (await find())?.email_token ?? fresh;
}
