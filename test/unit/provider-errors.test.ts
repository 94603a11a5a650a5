import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { MIN_RETRY_DELAY_MS, ModelError, mapProviderError, toApplicationFailure } from '../../activities/models/provider-errors';

const openaiError = (status: number, headers: Record<string, string> = {}, body: object = { error: { message: 'x' } }) =>
  OpenAI.APIError.generate(status, body, undefined, new Headers(headers));
/** A 400 invalid_request_error from the Anthropic SDK, saying `message`. */
const anthropicBadRequest = (message: string) =>
  Anthropic.APIError.generate(400, { type: 'error', error: { type: 'invalid_request_error', message } }, undefined, new Headers());

test.each([
  [408, ModelError.Timeout, true],
  [409, ModelError.Conflict, true],
  [429, ModelError.RateLimit, true],
  [500, ModelError.Server, true],
  [503, ModelError.Server, true],
  [529, ModelError.Overloaded, true],
  [400, ModelError.BadRequest, false],
  [401, ModelError.Authentication, false],
  [403, ModelError.PermissionDenied, false],
  [404, ModelError.NotFound, false],
  [422, ModelError.Unprocessable, false],
])('status %i -> %s (retryable %s)', (status, code, retryable) => {
  expect(mapProviderError(openaiError(status))).toMatchObject({ code, retryable });
});

test('retry-after (seconds, ms, HTTP date) becomes the next retry delay', () => {
  expect(mapProviderError(openaiError(429, { 'retry-after': '7' })).retryAfterMs).toBe(7000);
  expect(mapProviderError(openaiError(429, { 'retry-after-ms': '1500' })).retryAfterMs).toBe(1500);
  const date = new Date(Date.now() + 60_000).toUTCString();
  expect(mapProviderError(openaiError(503, { 'retry-after': date })).retryAfterMs).toBeGreaterThan(50_000);
  const failure = toApplicationFailure(mapProviderError(openaiError(429, { 'retry-after': '2' })));
  expect(failure).toMatchObject({ type: ModelError.RateLimit, nonRetryable: false, nextRetryDelay: 2000 });
});

test('a zero retry-after means "now": still retryable, with the smallest delay Temporal retries after', () => {
  const zeros: Record<string, string>[] = [{ 'retry-after': '0' }, { 'retry-after-ms': '0' }, { 'retry-after': new Date(Date.now() - 5_000).toUTCString() }];
  for (const headers of zeros) {
    const mapped = mapProviderError(openaiError(429, headers));
    expect(mapped).toMatchObject({ code: ModelError.RateLimit, retryable: true, retryAfterMs: 0 });
    expect(toApplicationFailure(mapped)).toMatchObject({ nonRetryable: false, nextRetryDelay: MIN_RETRY_DELAY_MS });
  }
  expect(MIN_RETRY_DELAY_MS).toBeGreaterThan(0);
});

test('context-length errors are not retryable', () => {
  const e = openaiError(400, {}, { error: { message: "This model's maximum context length is 128000 tokens", code: 'context_length_exceeded' } });
  expect(mapProviderError(e)).toMatchObject({ code: ModelError.ContextLength, retryable: false });
  const a = anthropicBadRequest('prompt is too long: 210000 tokens > 200000 maximum');
  expect(mapProviderError(a)).toMatchObject({ code: ModelError.ContextLength, retryable: false });
});

test('connection errors and mid-stream error events', () => {
  expect(mapProviderError(new OpenAI.APIConnectionError({ message: 'Connection error.' }))).toMatchObject({ code: ModelError.Connection, retryable: true });
  expect(mapProviderError(new TypeError('terminated'))).toMatchObject({ code: ModelError.Connection, retryable: true });
  // What the SDK throws for an SSE `event: error` mid-stream.
  const overloaded = new Anthropic.APIError(undefined, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, undefined, new Headers());
  expect(mapProviderError(overloaded)).toMatchObject({ code: ModelError.Overloaded, retryable: true });
});

test('a 400 about an image is AttachmentRefused (not retried): OpenAI\'s invalid_image_format, Anthropic\'s "Could not process image"', () => {
  const openai = openaiError(
    400,
    {},
    {
      error: {
        message: 'The image data you provided does not represent a valid image.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_image_format',
      },
    },
  );
  expect(mapProviderError(openai)).toMatchObject({ code: ModelError.AttachmentRefused, retryable: false });
  const anthropic = anthropicBadRequest('messages.0.content.0.image.source.base64.data: Could not process image');
  expect(mapProviderError(anthropic)).toMatchObject({ code: ModelError.AttachmentRefused, retryable: false });
  expect(mapProviderError(openaiError(400, {}, { error: { message: 'messages: too short' } }))).toMatchObject({ code: ModelError.BadRequest });
});
