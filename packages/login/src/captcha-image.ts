import { randomInt } from 'node:crypto';
import { deflateSync } from 'node:zlib';

/** Captcha characters: no 0/O, 1/I/L look-alikes. */
export const CAPTCHA_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

// 5×7 bitmap glyphs, one string of 35 bits per character, row by row.
const GLYPHS: Record<string, string> = {
  A: '01110100011000111111100011000110001',
  B: '11110100011000111110100011000111110',
  C: '01110100011000010000100001000101110',
  D: '11110100011000110001100011000111110',
  E: '11111100001000011110100001000011111',
  F: '11111100001000011110100001000010000',
  G: '01110100011000010111100011000101111',
  H: '10001100011000111111100011000110001',
  J: '00111000100001000010000101001001100',
  K: '10001100101010011000101001001010001',
  M: '10001110111010110101100011000110001',
  N: '10001100011100110101100111000110001',
  P: '11110100011000111110100001000010000',
  Q: '01110100011000110001101011001001101',
  R: '11110100011000111110101001001010001',
  S: '01111100001000001110000010000111110',
  T: '11111001000010000100001000010000100',
  U: '10001100011000110001100011000101110',
  V: '10001100011000110001100010101000100',
  W: '10001100011000110101101011010101010',
  X: '10001100010101000100010101000110001',
  Y: '10001100010101000100001000010000100',
  Z: '11111000010001000100010001000011111',
  '2': '01110100010000100010001000100011111',
  '3': '11111000100010000010000011000101110',
  '4': '00010001100101010010111110001000010',
  '5': '11111100001111000001000011000101110',
  '6': '00110010001000011110100011000101110',
  '7': '11111000010001000100010000100001000',
  '8': '01110100011000101110100011000101110',
  '9': '01110100011000101111000010001001100',
};

/** Width and height of every captcha image, in pixels. */
export const CAPTCHA_SIZE = { width: 132, height: 48 } as const;

/** A random captcha text of `length` characters from {@link CAPTCHA_ALPHABET}. */
export function randomCaptchaText(length = 4): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += CAPTCHA_ALPHABET[randomInt(CAPTCHA_ALPHABET.length)];
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(buffers: Buffer[]): number {
  let crc = 0xffffffff;
  for (const buffer of buffers) for (const byte of buffer) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const name = Buffer.from(type, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32([name, data]));
  return Buffer.concat([length, name, data, crc]);
}

/** Encodes an RGB pixel buffer (3 bytes a pixel, row by row) as a PNG file. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    raw[y * (width * 3 + 1)] = 0; // filter: none
    raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Draws `text` (characters of {@link CAPTCHA_ALPHABET}) as a PNG with jittered, slanted glyphs,
 * noise lines and dots. The image is always {@link CAPTCHA_SIZE} and a few kilobytes.
 */
export function renderCaptchaPng(text: string): Buffer {
  const { width, height } = CAPTCHA_SIZE;
  const rgb = new Uint8Array(width * height * 3);
  const bg = [236 + randomInt(12), 236 + randomInt(12), 236 + randomInt(12)];
  for (let i = 0; i < width * height; i += 1) rgb.set(bg, i * 3);
  const put = (x: number, y: number, color: number[]) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    rgb.set(color, (y * width + x) * 3);
  };
  const randomDark = () => [randomInt(20, 120), randomInt(20, 120), randomInt(20, 120)];
  const line = (x0: number, y0: number, x1: number, y1: number, color: number[]) => {
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
    for (let s = 0; s <= steps; s += 1) put(Math.round(x0 + ((x1 - x0) * s) / steps), Math.round(y0 + ((y1 - y0) * s) / steps), color);
  };

  const scale = 4;
  const cell = Math.floor((width - 8) / Math.max(text.length, 1));
  [...text.slice(0, 6)].forEach((ch, index) => {
    const glyph = GLYPHS[ch.toUpperCase()];
    if (!glyph) throw new RangeError(`no glyph for captcha character ${JSON.stringify(ch)}`);
    const color = randomDark();
    const left = 4 + index * cell + randomInt(0, Math.max(cell - 5 * scale, 1));
    const top = randomInt(2, height - 7 * scale - 2);
    const slant = (randomInt(0, 5) - 2) / 10; // shear, in pixels per pixel of height
    for (let row = 0; row < 7; row += 1) {
      for (let col = 0; col < 5; col += 1) {
        if (glyph[row * 5 + col] !== '1') continue;
        for (let dy = 0; dy < scale; dy += 1) {
          const y = top + row * scale + dy;
          const shift = Math.round((7 * scale - (y - top)) * slant);
          for (let dx = 0; dx < scale; dx += 1) put(left + col * scale + dx + shift, y, color);
        }
      }
    }
  });
  for (let i = 0; i < 5; i += 1) line(randomInt(width), randomInt(height), randomInt(width), randomInt(height), randomDark());
  for (let i = 0; i < 160; i += 1) put(randomInt(width), randomInt(height), randomDark());
  return encodePng(width, height, rgb);
}
