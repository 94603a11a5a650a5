/**
 * What an image's first bytes say: its format and its size in pixels. Pure and sandbox-safe (no Buffer,
 * no atob), so the workflow can check an attachment when it arrives and the token estimate can size it.
 * Only a prefix of the base64 text is decoded: formats put their dimensions near the start.
 */

export type SniffedImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export interface ImageHeader {
  mediaType: SniffedImageType;
  /** Pixels, when the header says (a JPEG whose frame header lies past the decoded prefix does not). */
  width?: number;
  height?: number;
  /** Set when the header says a size no image can have (0×0, a zero side): providers refuse such an image. */
  impossible?: string;
}

/** Enough for every format's header, and for a JPEG's frame header behind large EXIF/ICC segments. */
const PREFIX_BYTES = 256 * 1024;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUES = new Map([...ALPHABET].map((c, i) => [c, i]));

/** Whether `text` is standard padded base64 (the form both providers take). Linear, no backtracking. */
export function isBase64(text: string): boolean {
  return text.length > 0 && text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
}

/** Bytes that `text` (valid base64) decodes to. */
export function base64ByteLength(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

/** The first `maxBytes` bytes of base64 `text` (assumed valid). */
export function decodeBase64Prefix(text: string, maxBytes = PREFIX_BYTES): Uint8Array {
  const chars = Math.min(text.length, Math.ceil(maxBytes / 3) * 4);
  const out = new Uint8Array(Math.ceil(chars / 4) * 3);
  let n = 0;
  for (let i = 0; i < chars; i += 4) {
    const a = VALUES.get(text[i]) ?? 0;
    const b = VALUES.get(text[i + 1]) ?? 0;
    const c = VALUES.get(text[i + 2]);
    const d = VALUES.get(text[i + 3]);
    out[n++] = (a << 2) | (b >> 4);
    if (c !== undefined) out[n++] = ((b & 15) << 4) | (c >> 2);
    if (c !== undefined && d !== undefined) out[n++] = ((c & 3) << 6) | d;
  }
  return out.subarray(0, Math.min(n, maxBytes));
}

/** The format and size of the image in base64 `data`; undefined when it is none of PNG, JPEG, GIF, WebP. */
export function sniffImage(data: string): ImageHeader | undefined {
  // Most headers are in the first bytes; only a JPEG may need more, to reach its frame header.
  const head = sniffImageBytes(decodeBase64Prefix(data, 64));
  if (head?.mediaType !== 'image/jpeg' || head.width) return head;
  return sniffImageBytes(decodeBase64Prefix(data));
}

export function sniffImageBytes(b: Uint8Array): ImageHeader | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  const be16 = (i: number) => (b[i] << 8) | b[i + 1];
  const le16 = (i: number) => b[i] | (b[i + 1] << 8);
  const be32 = (i: number) => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
  const le24 = (i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);

  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 4) === 'PNG' && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) {
    const [w, h] = [be32(16), be32(20)];
    if (w > 0x7fffffff || h > 0x7fffffff) return { mediaType: 'image/png', impossible: `its header says it is ${w}×${h} pixels` };
    return sized('image/png', w, h);
  }
  if (b.length >= 10 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return sized('image/gif', le16(6), le16(8));
  if (b.length >= 16 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') {
    const chunk = ascii(12, 16);
    if (chunk === 'VP8 ' && b.length >= 30) return sized('image/webp', le16(26) & 0x3fff, le16(28) & 0x3fff);
    if (chunk === 'VP8L' && b.length >= 25) {
      return sized('image/webp', 1 + (((b[22] & 0x3f) << 8) | b[21]), 1 + (((b[24] & 0x0f) << 10) | (b[23] << 2) | ((b[22] & 0xc0) >> 6)));
    }
    if (chunk === 'VP8X' && b.length >= 30) return sized('image/webp', 1 + le24(24), 1 + le24(27));
    return { mediaType: 'image/webp' };
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) {
    // Walk the segments to the frame header (SOF0–SOF15 but DHT, JPG and DAC), which holds the size.
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) break;
      const marker = b[i + 1];
      if (marker === 0xff) {
        i++; // fill byte
        continue;
      }
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        i += 2; // markers without a length
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return sized('image/jpeg', be16(i + 7), be16(i + 5));
      }
      i += 2 + be16(i + 2);
    }
    return { mediaType: 'image/jpeg' };
  }
  return undefined;
}

function sized(mediaType: SniffedImageType, width: number, height: number): ImageHeader {
  if (width > 0 && height > 0) return { mediaType, width, height };
  return { mediaType, impossible: `its header says it is ${width}×${height} pixels` };
}
