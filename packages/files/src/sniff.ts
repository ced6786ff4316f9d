import { open } from 'node:fs/promises';
import { fileTypeFromBuffer } from 'file-type';

/** What {@link sniffFile} found out from a file's bytes. */
export interface SniffedType {
  /** MIME type: the detected one, `text/plain` for UTF-8 text, else `application/octet-stream`. */
  type: string;
  /** The usual extension of the detected type, without the dot; undefined for text and unknown bytes. */
  ext: string | undefined;
}

const HEAD_BYTES = 64 * 1024;

/**
 * The type of a file judged by its first bytes (file-type's signatures), never by its name or
 * by what a client declared. Bytes no signature matches are `text/plain` when they are valid
 * UTF-8 without NUL, `application/octet-stream` otherwise.
 */
export async function sniffFile(path: string): Promise<SniffedType> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return await sniffBuffer(buffer.subarray(0, bytesRead), bytesRead === HEAD_BYTES);
  } finally {
    await handle.close();
  }
}

/** {@link sniffFile} on bytes in memory; `truncated` says the buffer is only the file's head. */
export async function sniffBuffer(bytes: Uint8Array, truncated = false): Promise<SniffedType> {
  const found = await fileTypeFromBuffer(bytes);
  if (found) return { type: found.mime, ext: found.ext };
  return { type: isText(bytes, truncated) ? 'text/plain' : 'application/octet-stream', ext: undefined };
}

function isText(bytes: Uint8Array, truncated: boolean): boolean {
  if (bytes.includes(0)) return false;
  // A head cut in the middle of a character is still text: decode without the last 3 bytes' worry.
  const checked = truncated ? bytes.subarray(0, Math.max(0, bytes.length - 3)) : bytes;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(checked);
    return true;
  } catch {
    return false;
  }
}

// Extensions of formats that are plain text (no signature); markup that a browser runs is not one.
const TEXT_EXTENSIONS = new Set(['.txt', '.csv', '.tsv', '.md', '.json', '.log', '.ini', '.yaml', '.yml']);

/**
 * Whether a sniffed type passes an `accept` list (MIME types, `type/*`, or extensions such as
 * `.pdf`). An extension matches the sniffed type's extension; for text (which has no signature)
 * a plain-text extension (`.txt`, `.csv`, `.md`, …) matches the end of the client's file name,
 * so an HTML page called `x.png` is never a PNG. An empty list accepts everything.
 */
export function typeAccepted(accept: readonly string[], sniffed: SniffedType, clientName: string): boolean {
  if (accept.length === 0) return true;
  const name = clientName.toLowerCase();
  return accept.some((entry) => {
    if (entry.startsWith('.')) {
      if (sniffed.ext !== undefined) return `.${sniffed.ext}` === entry || (entry === '.jpeg' && sniffed.ext === 'jpg');
      return sniffed.type === 'text/plain' && TEXT_EXTENSIONS.has(entry) && name.endsWith(entry);
    }
    if (entry.endsWith('/*')) return sniffed.type.startsWith(entry.slice(0, -1));
    return sniffed.type === entry;
  });
}
