/**
 * Temporary upload URLs (GET /user_uploads/{realm_id}/{path} under /api/v1): a signed,
 * short-lived token naming one attachment, for opening it where API credentials cannot be sent.
 * Tokens stay short (the router caps path parameters at 100 characters). The signing key lives
 * in this process only, so a token is honoured by the process that made it.
 */
import crypto from "node:crypto";

/** Zulip's temporary URLs last 60 seconds. */
const TEMPORARY_URL_TTL_MS = 60_000;

/** 128 bits of HMAC are plenty against forgery within a minute. */
const MAC_CHARS = 22;
const KEY = crypto.randomBytes(32);

function sign(payload: string): string {
  return crypto.createHmac("sha256", KEY).update(payload).digest("base64url").slice(0, MAC_CHARS);
}

/** The attachment a token names. */
type TokenTarget = { realmId: number; attachmentId: number };

/** A token for an attachment that expires TEMPORARY_URL_TTL_MS after `nowMs`. */
export function temporaryToken(target: TokenTarget, nowMs: number): string {
  const payload = `${target.realmId}-${target.attachmentId}-${nowMs + TEMPORARY_URL_TTL_MS}`;
  return `${payload}.${sign(payload)}`;
}

/** The attachment a token names, or null when it is forged, malformed or expired. */
export function verifyTemporaryToken(token: string, nowMs: number): TokenTarget | null {
  const m = /^(\d+)-(\d+)-(\d+)\.([A-Za-z0-9_-]+)$/.exec(token);
  if (m === null) return null;
  const expected = Buffer.from(sign(`${m[1]}-${m[2]}-${m[3]}`));
  const given = Buffer.from(m[4]);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  return Number(m[3]) >= nowMs ? { realmId: Number(m[1]), attachmentId: Number(m[2]) } : null;
}
