/**
 * Input attachments (seed 000 `IContextAttachment`), images first. An image is carried as base64 `data`
 * with its media type, or as a `url` the provider fetches itself. Large images stay out of Temporal's
 * payloads by the offload codec (stored by reference in the blob store), so history holds each once.
 */
import { z } from 'zod';
import { InputRejectedError } from './errors';
import { base64ByteLength, isBase64, sniffImage } from './image-header';

/** The image types both providers accept. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const ImageMediaType = z.enum(IMAGE_MEDIA_TYPES);
export type ImageMediaType = z.infer<typeof ImageMediaType>;

/** Largest image, in characters of its base64 text: Anthropic's per-image limit (5 MB), about 3.75 MB of image. */
export const IMAGE_MAX_BASE64_CHARS = 5 * 1024 * 1024;
/** Most attachments in one input. */
export const ATTACHMENTS_MAX_COUNT = 8;
/** All attachments of one input together, in base64 characters: the agent carries them for the rest of its life. */
export const ATTACHMENTS_MAX_TOTAL_CHARS = 10 * 1024 * 1024;
const URL_MAX_CHARS = 2048;

/** One image: exactly one of `data` (with `mediaType`) or `url`. */
export const ImageAttachment = z
  .object({
    type: z.literal('image'),
    /** Required with `data`; with `url` the provider finds out itself. */
    mediaType: ImageMediaType.optional(),
    /** The image's bytes as standard base64 (no `data:` prefix). */
    data: z.string().max(IMAGE_MAX_BASE64_CHARS).optional(),
    /** An https URL the provider fetches: a reference, nothing of the image enters history. */
    url: z.string().max(URL_MAX_CHARS).optional(),
    /** What the sender calls it (a file name); the model sees it beside the image. */
    name: z.string().max(200).optional(),
  })
  .strict()
  .refine((a) => (a.data === undefined) !== (a.url === undefined), { message: 'an image needs exactly one of "data" or "url"' })
  .refine((a) => a.data === undefined || a.mediaType !== undefined, { message: 'an image given as "data" needs its "mediaType"' });
export type ImageAttachment = z.infer<typeof ImageAttachment>;

/** What an input may carry besides its text. Images for now; other kinds join this union. */
export const Attachment = ImageAttachment;
export type Attachment = z.infer<typeof Attachment>;

const SUPPORTED = 'PNG, JPEG, GIF or WebP';
/** The workflow patch behind refusing images whose header gives a size no image has (0×0). */
export const IMPOSSIBLE_IMAGES_CHANGE = 'refuse-impossible-images';
const KIND: Record<string, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP' };

/**
 * Checks the attachments of an input, with errors that say what to change: count, size, type (the data
 * must really be the image its media type names — providers refuse a mismatch), a size no image has
 * (0×0), URL scheme. `refuseImpossible` says whether the size check applies (asked only when it fails:
 * a workflow replaying input accepted before it takes it again; see IMPOSSIBLE_IMAGES_CHANGE).
 */
export function parseAttachments(raw: unknown, refuseImpossible?: () => boolean): Attachment[] {
  if (!Array.isArray(raw)) throw malformed('"attachments" must be a list');
  if (raw.length > ATTACHMENTS_MAX_COUNT) {
    throw new InputRejectedError('TOO_MANY_ATTACHMENTS', `The input has ${raw.length} attachments; at most ${ATTACHMENTS_MAX_COUNT} are accepted per input.`);
  }
  let total = 0;
  return raw.map((item, i) => {
    const which = `Attachment ${i + 1}${nameOf(item)}`;
    const a = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    if (a.type !== 'image') throw unsupported(`${which} is of type ${JSON.stringify(a.type ?? null)}; only "image" attachments are supported.`);
    if (typeof a.mediaType === 'string' && !(IMAGE_MEDIA_TYPES as readonly string[]).includes(a.mediaType)) {
      throw unsupported(`${which} is ${a.mediaType}; images must be ${SUPPORTED} (${IMAGE_MEDIA_TYPES.join(', ')}).`);
    }
    if (typeof a.data === 'string') {
      if (a.data.startsWith('data:')) throw malformed(`${which}: "data" is the base64 text alone, without a "data:…;base64," prefix`);
      if (a.data.length > IMAGE_MAX_BASE64_CHARS) {
        throw new InputRejectedError(
          'ATTACHMENT_TOO_LARGE',
          `${which} is ${mb(base64ByteLength(a.data))} (${mb(a.data.length)} as base64); the limit is ${mb(IMAGE_MAX_BASE64_CHARS)} as base64 (about ${mb((IMAGE_MAX_BASE64_CHARS / 4) * 3)} of image). Scale it down or send a URL.`,
        );
      }
      total += a.data.length;
      if (!isBase64(a.data)) throw malformed(`${which}: "data" is not standard padded base64`);
      const sniffed = sniffImage(a.data);
      if (!sniffed) throw unsupported(`${which} is not a ${SUPPORTED} image.`);
      // Providers refuse it (OpenAI: 400 invalid_image_format), and the agent would carry it for good.
      if (sniffed.impossible && (refuseImpossible?.() ?? true))
        throw unsupported(`${which} is not a valid ${KIND[sniffed.mediaType]} image: ${sniffed.impossible}.`);
      if (typeof a.mediaType === 'string' && sniffed.mediaType !== a.mediaType) {
        throw unsupported(`${which} is said to be ${a.mediaType}, but its data is a ${KIND[sniffed.mediaType]} image (${sniffed.mediaType}).`);
      }
    }
    if (typeof a.url === 'string' && !/^https:\/\/[^\s/]+/i.test(a.url)) throw malformed(`${which}: "url" must be an https URL`);
    const parsed = ImageAttachment.safeParse(item);
    if (!parsed.success) throw malformed(`${which}: ${parsed.error.issues.map((x) => `${x.path.join('.') || 'attachment'}: ${x.message}`).join('; ')}`);
    if (total > ATTACHMENTS_MAX_TOTAL_CHARS) {
      throw new InputRejectedError(
        'ATTACHMENT_TOO_LARGE',
        `The attachments of one input come to more than ${mb(ATTACHMENTS_MAX_TOTAL_CHARS)} as base64; send fewer or smaller images.`,
      );
    }
    return parsed.data;
  });
}

/**
 * Estimated input tokens of one image: the larger of Anthropic's (pixels / 750 after scaling to at most
 * 1568 px and about 1.15 megapixels) and OpenAI's high-detail tiles (85 + 170 per 512 px tile after
 * fitting 2048 px, shortest side 768 px). An image without known size counts as the largest either takes.
 */
export const IMAGE_TOKENS_UNKNOWN_SIZE = 1600;

/** By attachment object: the model activity renders the same cached entries on every call. */
const tokenMemo = new WeakMap<object, number>();

export function imageTokens(image: ImageAttachment): number {
  let tokens = tokenMemo.get(image);
  if (tokens === undefined) tokenMemo.set(image, (tokens = estimateImageTokens(image)));
  return tokens;
}

function estimateImageTokens(image: ImageAttachment): number {
  const header = image.data !== undefined ? sniffImage(image.data) : undefined;
  if (!header?.width || !header.height) return IMAGE_TOKENS_UNKNOWN_SIZE;
  const { width: w, height: h } = header;
  const a = Math.min(1, 1568 / Math.max(w, h), Math.sqrt(1_150_000 / (w * h)));
  const anthropic = Math.ceil((w * a * h * a) / 750);
  const fit = Math.min(1, 2048 / Math.max(w, h));
  const short = Math.min(w, h) * fit;
  const s = fit * Math.min(1, 768 / short);
  const openai = 85 + 170 * Math.ceil((w * s) / 512) * Math.ceil((h * s) / 512);
  return Math.max(anthropic, openai);
}

/** The text shown just before a named attachment, so the model can tell several apart by name. */
export function attachmentLabel(attachment: Attachment): string | undefined {
  return attachment.name ? `[image: ${attachment.name}]` : undefined;
}

function nameOf(item: unknown): string {
  const name = (item as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name ? ` (${name.slice(0, 80)})` : '';
}

const malformed = (why: string) => new InputRejectedError('MALFORMED_ATTACHMENT', `Malformed attachment: ${why}.`);
const unsupported = (message: string) => new InputRejectedError('UNSUPPORTED_ATTACHMENT', message);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
