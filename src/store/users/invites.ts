/**
 * Invitations (email invitations and reusable links, one table) and the outgoing email queue,
 * always within one realm except the token lookup, which finds the invitation a link names.
 */
import { sql } from "kysely";
import { jobQueue } from "../engine/job-tables.ts";
import { INVITE_STATUS, type EmailJobRow, type InviteRow, type NewInvite } from "../schema/invites.ts";
import type { Db } from "../schema/types.ts";

/** Writes an invitation and returns its row. */
export function insertInvite(db: Db, row: NewInvite): Promise<InviteRow> {
  return db.insertInto("invites").values(row).returningAll().executeTakeFirstOrThrow();
}

/** The invitation whose token has this digest, of any realm and state. */
export function inviteByTokenHash(db: Db, tokenHash: string): Promise<InviteRow | undefined> {
  return db.selectFrom("invites").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
}

/** One invitation of the realm by id, of either kind and any state. */
export function getInvite(db: Db, realmId: number, id: number): Promise<InviteRow | undefined> {
  return db.selectFrom("invites").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/**
 * The realm's open invitations not expired at `nowSeconds` (expiring exactly then still counts,
 * as Zulip's `expiry_date >= now`), oldest first; only those `invitedBy` made when given.
 * Sign-up confirmations are not invitations anyone manages, and are left out.
 */
export function openInvites(db: Db, realmId: number, nowSeconds: number, invitedBy: number | null): Promise<InviteRow[]> {
  let query = db
    .selectFrom("invites")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("status", "=", INVITE_STATUS.active)
    .where("multiuse_invite_id", "is", null)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">=", nowSeconds)]));
  if (invitedBy !== null) query = query.where("invited_by", "=", invitedBy);
  return query.orderBy("id").execute();
}

/** Whether an address (compared case-insensitively) has an open, unexpired email invitation in the realm (sign-up confirmations aside). */
export async function hasOpenEmailInvite(db: Db, realmId: number, email: string, nowSeconds: number): Promise<boolean> {
  const row = await db
    .selectFrom("invites")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("status", "=", INVITE_STATUS.active)
    .where("is_multiuse", "=", 0)
    .where("multiuse_invite_id", "is", null)
    .where(sql<string>`lower(email)`, "=", email.toLowerCase())
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">=", nowSeconds)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** Moves an invitation from `from` to `to`; false when it was not in state `from` (another request got there first). */
export async function changeInviteStatus(db: Db, realmId: number, id: number, from: number, to: number): Promise<boolean> {
  const result = await db.updateTable("invites").set({ status: to }).where("realm_id", "=", realmId).where("id", "=", id).where("status", "=", from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Revokes the realm's other open email invitations to an address (compared case-insensitively), once it has an account. */
export async function revokeEmailInvitesTo(db: Db, realmId: number, email: string, exceptId: number): Promise<void> {
  await db
    .updateTable("invites")
    .set({ status: INVITE_STATUS.revoked })
    .where("realm_id", "=", realmId)
    .where("status", "=", INVITE_STATUS.active)
    .where("id", "<>", exceptId)
    .where(sql<string>`lower(email)`, "=", email.toLowerCase())
    .execute();
}

/** Replaces an invitation's token digest (a resent email carries a fresh link). */
export async function setInviteTokenHash(db: Db, realmId: number, id: number, tokenHash: string): Promise<void> {
  await db.updateTable("invites").set({ token_hash: tokenHash }).where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/** How many email invitations the realm made since `sinceSeconds`, whatever became of them (sign-up confirmations are not counted). */
export async function countEmailInvitesSince(db: Db, realmId: number, sinceSeconds: number): Promise<number> {
  const row = await db
    .selectFrom("invites")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("realm_id", "=", realmId)
    .where("is_multiuse", "=", 0)
    .where("multiuse_invite_id", "is", null)
    .where("invited_at", ">=", sinceSeconds)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The emails waiting to be sent (see job-tables.ts). */
export const emailJobs = jobQueue<EmailJobRow>("email_jobs");

/** Queues one email, due at once. */
export async function insertEmailJob(db: Db, job: { realm_id: number; to_address: string; subject: string; body: string; html_body: string | null; due_at_ms: number }): Promise<void> {
  await db.insertInto("email_jobs").values(job).execute();
}
