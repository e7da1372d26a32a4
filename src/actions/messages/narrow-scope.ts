/** The scopes narrow lookups and message queries run in for a caller. */
import { emailDomain } from "../../model/emails.ts";
import type { NarrowScope } from "../../narrow/lookups.ts";
import type { QueryScope } from "../../store/messages/message-queries.ts";
import type { AuthedCtx } from "../context.ts";

/** Where narrow operands are looked up for this caller. */
export function narrowScope(ctx: AuthedCtx): NarrowScope {
  return { db: ctx.db, realmId: ctx.realm.id, viewer: ctx.actor, host: emailDomain(ctx.config.externalUrl) };
}

/** Where narrow queries run for this caller. */
export function queryScope(ctx: AuthedCtx): QueryScope {
  return { db: ctx.db, engine: ctx.engine, realmId: ctx.realm.id, viewerId: ctx.actor.id };
}
