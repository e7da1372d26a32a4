/**
 * The avatar shown for a user the viewer may not access (avatar_url
 * `/static/images/unknown-user-avatar.png`): a grey head-and-shoulders figure, drawn here and
 * encoded as a PNG once, so the server ships no image file.
 */
import { deflateSync } from "node:zlib";

/** Pixels per side (Zulip's avatars are 100 px squares). */
const SIZE = 100;
/** Samples per pixel side, for smooth edges. */
const SUPERSAMPLE = 4;
const BACKGROUND = [0xe4, 0xe6, 0xea] as const;
const FIGURE = [0x9a, 0xa0, 0xa8] as const;

/** Whether a point (in pixels) lies on the figure: a round head above rounded shoulders. */
function onFigure(x: number, y: number): boolean {
  const head = (x - 50) ** 2 + (y - 37) ** 2 <= 17 ** 2;
  const shoulders = ((x - 50) / 33) ** 2 + ((y - 94) / 34) ** 2 <= 1;
  return head || shoulders;
}

/** The image's RGB rows, each led by PNG's filter byte 0 (none). */
function pixelRows(): Buffer {
  const stride = 1 + SIZE * 3;
  const out = Buffer.alloc(SIZE * stride);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      let covered = 0;
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) if (onFigure(x + (sx + 0.5) / SUPERSAMPLE, y + (sy + 0.5) / SUPERSAMPLE)) covered++;
      }
      const share = covered / SUPERSAMPLE ** 2;
      for (let c = 0; c < 3; c++) out[y * stride + 1 + x * 3 + c] = Math.round(BACKGROUND[c] + (FIGURE[c] - BACKGROUND[c]) * share);
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** The CRC-32 a PNG chunk ends with (over its type and data). */
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, data, CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

let encoded: Buffer | undefined;

/** The placeholder avatar as PNG bytes (8-bit RGB), made on first use. */
export function unknownUserAvatarPng(): Buffer {
  if (encoded === undefined) {
    const header = Buffer.alloc(13);
    header.writeUInt32BE(SIZE, 0);
    header.writeUInt32BE(SIZE, 4);
    header.set([8, 2, 0, 0, 0], 8); // bit depth 8, RGB, deflate, adaptive filtering, no interlace
    const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    encoded = Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(pixelRows())), chunk("IEND", Buffer.alloc(0))]);
  }
  return encoded;
}
