/**
 * `send --image FILE`: image files read into input attachments, checked here with the agent's own
 * rules, so a missing, unsupported or oversized file is a clear error before anything is sent.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputRejectedError } from '../agent/index';
import { type Attachment, IMAGE_MAX_BASE64_CHARS, parseAttachments } from '../agent/attachments';
import { sniffImageBytes } from '../agent/image-header';
import { UserError } from '../common/user-error';

/** Larger files are refused without being read: as base64 they would be over the per-image limit. */
const MAX_FILE_BYTES = (IMAGE_MAX_BASE64_CHARS / 4) * 3;

export function readImageFiles(files: readonly string[]): Attachment[] {
  const attachments = files.map((file) => {
    let size: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) throw new UserError(`Cannot attach ${file}: not a file.`);
      size = stat.size;
    } catch (err) {
      if (err instanceof UserError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new UserError(`Cannot attach ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}.`);
    }
    if (size > MAX_FILE_BYTES) {
      throw new UserError(`Cannot attach ${file}: it is ${mb(size)}; an image may be at most ${mb(MAX_FILE_BYTES)}. Scale it down.`);
    }
    const bytes = readFileSync(file);
    const header = sniffImageBytes(bytes.subarray(0, 256 * 1024));
    if (!header) throw new UserError(`Cannot attach ${file}: not a PNG, JPEG, GIF or WebP image.`);
    return { type: 'image' as const, mediaType: header.mediaType, data: bytes.toString('base64'), name: path.basename(file) };
  });
  try {
    return parseAttachments(attachments); // the count and total the agent allows
  } catch (err) {
    if (err instanceof InputRejectedError) throw new UserError(err.message);
    throw err;
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
