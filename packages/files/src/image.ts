import { open } from 'node:fs/promises';
import { imageSize } from 'image-size';

/** How much of a file {@link imageDimensions} reads: image headers (and a JPEG's metadata before its frame header) fit. */
const HEAD_BYTES = 512 * 1024;

/** The width and height of an image, in pixels. */
export interface ImageDimensions {
  width: number;
  height: number;
}

/**
 * The dimensions an image file declares in its header (PNG, JPEG, GIF, WebP and the other formats
 * `image-size` knows), read from its first 512 KiB without decoding any pixels; undefined when
 * the bytes are not an image whose header can be read there. A few kilobytes can declare an
 * image a browser would decode into gigabytes: check the pixel count before showing it.
 */
export async function imageDimensions(path: string): Promise<ImageDimensions | undefined> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const found = imageSize(buffer.subarray(0, bytesRead));
    const { width, height } = found;
    if (!Number.isSafeInteger(width) || !Number.isSafeInteger(height) || width <= 0 || height <= 0) return undefined;
    return { width, height };
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
