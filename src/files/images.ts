/** Recognising the image formats custom emoji may use, by their signature bytes. */

/** Emoji image formats and their file extensions (Zulip accepts these). */
const SIGNATURES: ReadonlyArray<{ ext: string; matches: (b: Buffer) => boolean }> = [
  { ext: "png", matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { ext: "gif", matches: (b) => ["GIF87a", "GIF89a"].includes(b.subarray(0, 6).toString("latin1")) },
  { ext: "jpeg", matches: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { ext: "webp", matches: (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP" },
];

/** The extension of a supported image, or null for anything else. */
export function imageExtension(data: Buffer): string | null {
  return SIGNATURES.find((s) => s.matches(data))?.ext ?? null;
}

const EMOJI_CONTENT_TYPES = new Map([["png", "image/png"], ["gif", "image/gif"], ["jpeg", "image/jpeg"], ["webp", "image/webp"]]);

/** The content type of a stored emoji image by its extension, or null for any other name. */
export function emojiContentType(fileName: string): string | null {
  return EMOJI_CONTENT_TYPES.get(/\.([a-z]+)$/.exec(fileName)?.[1] ?? "") ?? null;
}
