/**
 * How the provider fakes look at an image: decoded with Buffer and recognised by its magic bytes —
 * independently of the framework's own sniffing (agent/image-header.ts), so a bug there shows here.
 */
export type FakeImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
export const FAKE_IMAGE_TYPES: readonly FakeImageType[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/** Strict standard base64 (what both APIs take); Buffer alone would skip bad characters silently. */
export function decodeStrictBase64(text: string): Buffer | undefined {
  if (text.length === 0 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  return Buffer.from(text, 'base64');
}

/**
 * Whether the service could decode the image, as far as the fakes look: a PNG whose header says a side
 * is 0 pixels cannot be (OpenAI answers 400 invalid_image_format, Anthropic "Could not process image").
 */
export function decodable(bytes: Buffer): boolean {
  if (imageTypeOf(bytes) === 'image/png') return bytes.length >= 24 && bytes.readUInt32BE(16) > 0 && bytes.readUInt32BE(20) > 0;
  return true;
}

/** The image type the bytes are, by their signature; undefined when they are none of the four. */
export function imageTypeOf(bytes: Buffer): FakeImageType | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const head = bytes.subarray(0, 6).toString('latin1');
  if (head === 'GIF87a' || head === 'GIF89a') return 'image/gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}
