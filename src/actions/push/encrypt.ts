/**
 * Encrypting a notification for one device (FL 406-420): the payload JSON sealed with libsodium
 * to the device's X25519 public key (`push_public_key`, standard base64). Upstream's 11.x cipher
 * for push_public_key could not be read from its source; the research (shared/research/
 * push-e2ee.md §4.2) found every indication of a sealed box (the key is "the public part of an
 * asymmetric key pair generated using NaCl", the relay uses sealed boxes, and FL 432 replaced it
 * with a secretbox), so a sealed box it is.
 */
import type Sodium from "libsodium-wrappers";

/** libsodium is WebAssembly: loaded and made ready once, with the first use (not at every start). */
let loaded: Promise<typeof Sodium> | null = null;
function readySodium(): Promise<typeof Sodium> {
  loaded ??= import("libsodium-wrappers").then(async ({ default: sodium }) => {
    await sodium.ready;
    return sodium;
  });
  return loaded;
}

/** `payload` sealed to `publicKeyB64`, as standard base64; null when the key is not a 32-byte key. */
export async function sealForDevice(publicKeyB64: string, payload: unknown): Promise<string | null> {
  const sodium = await readySodium();
  let key: Uint8Array;
  try {
    key = sodium.from_base64(publicKeyB64, sodium.base64_variants.ORIGINAL);
  } catch {
    return null;
  }
  if (key.length !== sodium.crypto_box_PUBLICKEYBYTES) return null;
  return sodium.to_base64(sodium.crypto_box_seal(sodium.from_string(JSON.stringify(payload)), key), sodium.base64_variants.ORIGINAL);
}
