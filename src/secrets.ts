/** API keys, tokens and password hashes, from node:crypto. */
import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random alphanumeric string (API keys are 32 characters, as in Zulip). */
export function randomAlphanumeric(length = 32): string {
  const bytes = crypto.randomBytes(length * 2);
  let out = "";
  for (const byte of bytes) {
    // 248 = 4 * 62: reject the top values so every character is equally likely.
    if (byte < 248) out += ALPHANUMERIC[byte % 62];
    if (out.length === length) return out;
  }
  return out + randomAlphanumeric(length - out.length);
}

// scrypt cost: N=2^15, r=8, p=1 (about 32 MiB and ~50 ms here), the usual interactive-login level.
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_BYTES = 32;

/** Hashes a password as `scrypt$N$r$p$salt$hash` (base64 parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_BYTES, SCRYPT);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64"), hash.toString("base64")].join("$");
}

/** Checks a password against a stored hash in constant time; false for any malformed hash. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split("$") ?? [];
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], "base64");
  const expected = Buffer.from(parts[5], "base64");
  const actual = await scrypt(password, salt, expected.length, { N, r, p, maxmem: SCRYPT.maxmem });
  return crypto.timingSafeEqual(actual, expected);
}

/** The SHA-256 of a bearer token, hex: what is stored in place of tokens that are never shown again. */
export function tokenDigest(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}
