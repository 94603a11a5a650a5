/**
 * Image attachments in the pure parts: what an input may carry (limits, types, clear refusals), what the
 * agent records, how a token estimate sizes an image, and how both adapters render it — checked by the
 * wire fakes' validators, which decode the image on their own.
 */
import { Agent, AgentState, type ModelCallResult, countMessageTokens, parseInput, readSnapshot, renderLiveContext } from '../../agent/index';
import { ATTACHMENTS_MAX_COUNT, IMAGE_MAX_BASE64_CHARS, IMAGE_TOKENS_UNKNOWN_SIZE, imageTokens } from '../../agent/attachments';
import { sniffImage } from '../../agent/image-header';
import { toAnthropicRequest } from '../../activities/models/anthropic-messages';
import { toOpenAIMessages } from '../../activities/models/openai-messages';
import { gifHeader, jpegHeader, makePng, webpHeader } from '../fixtures/images';
import { validateMessagesRequest } from '../support/fake-anthropic-validate';
import { validateChatCompletionRequest } from '../support/fake-openai-validate';

const b64 = (b: Buffer) => b.toString('base64');
const png = b64(makePng(64, 48));
const image = (extra: Record<string, unknown> = {}) => ({ type: 'image', mediaType: 'image/png', data: png, ...extra });
const rejected = (raw: unknown) => {
  try {
    parseInput(raw);
  } catch (err) {
    return { code: (err as { code: string }).code, message: (err as Error).message };
  }
  throw new Error('the input was accepted');
};

test('each format tells its type and size from its first bytes', () => {
  expect(sniffImage(png)).toEqual({ mediaType: 'image/png', width: 64, height: 48 });
  expect(sniffImage(b64(jpegHeader(4000, 3000)))).toEqual({ mediaType: 'image/jpeg', width: 4000, height: 3000 }); // frame header behind 40 KB of EXIF
  expect(sniffImage(b64(gifHeader(320, 200)))).toEqual({ mediaType: 'image/gif', width: 320, height: 200 });
  expect(sniffImage(b64(webpHeader(1000, 700)))).toEqual({ mediaType: 'image/webp', width: 1000, height: 700 });
  expect(sniffImage(b64(Buffer.from('BM not an image at all')))).toBeUndefined();
});

test('an input carries images by data or by URL; inputs without them stay as they were', () => {
  expect(parseInput({ text: 'hi' })).toEqual({ sections: [{ title: 'Input', content: 'hi' }] });
  const url = { type: 'image', url: 'https://example.com/cat.png', name: 'cat.png' };
  expect(parseInput({ text: 'what is this?', attachments: [image({ name: 'a.png' }), url] })).toEqual({
    sections: [{ title: 'Input', content: 'what is this?' }],
    attachments: [{ type: 'image', mediaType: 'image/png', data: png, name: 'a.png' }, url],
  });
});

test('limits and types are refused with a reason, by code', () => {
  const many = Array.from({ length: ATTACHMENTS_MAX_COUNT + 1 }, () => image());
  expect(rejected({ text: 'x', attachments: many })).toMatchObject({
    code: 'TOO_MANY_ATTACHMENTS',
    message: expect.stringMatching(/9 attachments; at most 8/),
  });
  const huge = 'A'.repeat(IMAGE_MAX_BASE64_CHARS + 4);
  expect(rejected({ text: 'x', attachments: [image({ data: huge, name: 'big.png' })] })).toMatchObject({
    code: 'ATTACHMENT_TOO_LARGE',
    message: expect.stringMatching(/^Attachment 1 \(big\.png\) is 3\.8 MB \(5\.0 MB as base64\); the limit is 5\.0 MB as base64/),
  });
  expect(rejected({ text: 'x', attachments: [image({ mediaType: 'image/bmp' })] })).toMatchObject({
    code: 'UNSUPPORTED_ATTACHMENT',
    message: expect.stringMatching(/image\/bmp; images must be PNG, JPEG, GIF or WebP/),
  });
  expect(rejected({ text: 'x', attachments: [image({ data: b64(jpegHeader(10, 10)) })] })).toMatchObject({
    code: 'UNSUPPORTED_ATTACHMENT',
    message: expect.stringMatching(/said to be image\/png, but its data is a JPEG image/),
  });
  expect(rejected({ text: 'x', attachments: [image({ data: b64(Buffer.from('%PDF-1.7 hello')) })] })).toMatchObject({
    code: 'UNSUPPORTED_ATTACHMENT',
    message: expect.stringMatching(/is not a PNG, JPEG, GIF or WebP image/),
  });
  expect(rejected({ text: 'x', attachments: [{ type: 'audio', data: png }] })).toMatchObject({ code: 'UNSUPPORTED_ATTACHMENT' });
  expect(rejected({ text: 'x', attachments: [image({ data: `data:image/png;base64,${png}` })] })).toMatchObject({
    code: 'MALFORMED_ATTACHMENT',
    message: expect.stringMatching(/without a "data:…;base64," prefix/),
  });
  expect(rejected({ text: 'x', attachments: [image({ data: 'not base64!' })] })).toMatchObject({ code: 'MALFORMED_ATTACHMENT' });
  expect(rejected({ text: 'x', attachments: [{ type: 'image', data: png }] })).toMatchObject({
    code: 'MALFORMED_ATTACHMENT',
    message: expect.stringMatching(/needs its "mediaType"/),
  });
  expect(rejected({ text: 'x', attachments: [{ type: 'image', url: 'http://example.com/a.png' }] })).toMatchObject({
    code: 'MALFORMED_ATTACHMENT',
    message: expect.stringMatching(/https URL/),
  });
  expect(rejected({ text: 'x', attachments: [image({ url: 'https://example.com/a.png' })] })).toMatchObject({
    code: 'MALFORMED_ATTACHMENT',
    message: expect.stringMatching(/exactly one of "data" or "url"/),
  });
  expect(rejected({ text: 'x', attachments: [image({ extra: 1 })] })).toMatchObject({ code: 'MALFORMED_ATTACHMENT' });
  expect(rejected({ text: '  ', attachments: [image()] })).toMatchObject({ code: 'BLANK_WITH_ATTACHMENTS' });
});

test('the agent records the images with the input, and a snapshot carries them', async () => {
  let now = Date.UTC(2026, 0, 1);
  const agent = Agent.create({ config: { model: 'fake:m' }, clock: () => (now += 1000) });
  agent.enqueueInput({ text: 'look', attachments: [image({ name: 'a.png' })] });
  const answer: ModelCallResult = { contents: ['a grey box'], toolCalls: [], invocation: { providerId: 'fake', specification: 'fake', model: 'm' } };
  const deps = {
    callModel: async () => answer,
    executeTool: async () => {
      throw new Error('no tools');
    },
  };
  expect(JSON.stringify(agent.toSnapshot().inbox)).toContain(png);
  while ((await agent.doStep(deps)) === 'ProgressMade');
  expect(agent.state.entries[0]).toMatchObject({ kind: 'model_input', attachments: [{ type: 'image', mediaType: 'image/png', data: png, name: 'a.png' }] });
  const carried = Agent.fromSnapshot(JSON.parse(JSON.stringify(agent.toSnapshot())), () => now);
  expect(carried.state.entries).toEqual(agent.state.entries);
  // A snapshot from before attachments (no such field anywhere) still reads.
  const old = JSON.parse(JSON.stringify(agent.toSnapshot()));
  delete old.entries[0].attachments;
  expect(() => readSnapshot(old)).not.toThrow();
});

test('an image counts by its pixels, not by its base64 length', () => {
  const big = b64(makePng(1024, 1024, { noise: true })); // 3 MB image, 4 MB of base64
  expect(imageTokens({ type: 'image', mediaType: 'image/png', data: big })).toBe(1399); // Anthropic's 1024²/750 beats OpenAI's 4 tiles (765)
  expect(imageTokens({ type: 'image', mediaType: 'image/png', data: png })).toBe(255); // OpenAI's one tile beats Anthropic's 5
  expect(imageTokens({ type: 'image', url: 'https://example.com/x.png' })).toBe(IMAGE_TOKENS_UNKNOWN_SIZE);
  const s = new AgentState(() => 0);
  s.appendModelInput({ sections: [{ title: 'Input', content: 'what is it?' }], attachments: [{ type: 'image', mediaType: 'image/png', data: big }] });
  const tokens = countMessageTokens(renderLiveContext(s.entries)[0]);
  expect(tokens).toBeGreaterThan(1399);
  expect(tokens).toBeLessThan(1420);
});

function sessionWithImages() {
  const s = new AgentState(() => 0);
  s.appendModelInput({
    sections: [{ title: 'Input', content: 'compare them' }],
    attachments: [
      { type: 'image', mediaType: 'image/png', data: png, name: 'before.png' },
      { type: 'image', url: 'https://example.com/after.jpg' },
    ],
  });
  return renderLiveContext(s.entries, { liveScreen: '# [Live Screen]' });
}

test('OpenAI: text, then each image as an image_url part after its name, the LiveScreen last', () => {
  const messages = toOpenAIMessages(sessionWithImages(), undefined);
  expect(messages).toEqual([
    {
      role: 'user',
      content: [
        { type: 'text', text: 'compare them' },
        { type: 'text', text: '[image: before.png]' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        { type: 'image_url', image_url: { url: 'https://example.com/after.jpg' } },
        { type: 'text', text: '# [Live Screen]' },
      ],
    },
  ]);
  expect(validateChatCompletionRequest({ model: 'gpt', stream: true, messages })).toBeNull();
  // The fake refuses what the service refuses: bytes that are not the image the data URL names.
  const bad = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b64(Buffer.from('plain text, not an image'))}` } }] }];
  expect(validateChatCompletionRequest({ model: 'gpt', stream: true, messages: bad })).toMatchObject({ code: 'invalid_image_format' });
});

test('Anthropic: image blocks (base64 or url) before the text, the LiveScreen last', () => {
  const request = toAnthropicRequest(sessionWithImages(), undefined, [], { providerId: 'anthropic', cache: false });
  expect(request.messages).toEqual([
    {
      role: 'user',
      content: [
        { type: 'text', text: '[image: before.png]' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/after.jpg' } },
        { type: 'text', text: 'compare them' },
        { type: 'text', text: '# [Live Screen]' },
      ],
    },
  ]);
  expect(() => validateMessagesRequest({ model: 'claude', max_tokens: 10, stream: true, messages: request.messages })).not.toThrow();
  const mismatch = [
    {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: png } },
        { type: 'text', text: 'hi' },
      ],
    },
  ];
  expect(() => validateMessagesRequest({ model: 'claude', max_tokens: 10, stream: true, messages: mismatch })).toThrow(
    'messages.0.content.0.image.source.base64.data: The image was specified using the image/gif media type, but the image appears to be a image/png image',
  );
});

test('an image whose header says a side is 0 pixels is refused at the door, in every format; a replayed input is taken as before', () => {
  const zeroPng = makePng(1, 1);
  zeroPng.writeUInt32BE(0, 16);
  zeroPng.writeUInt32BE(0, 20);
  expect(sniffImage(b64(zeroPng))).toEqual({ mediaType: 'image/png', impossible: 'its header says it is 0×0 pixels' });
  expect(rejected({ text: 'x', attachments: [image({ data: b64(zeroPng), name: 'z.png' })] })).toEqual({
    code: 'UNSUPPORTED_ATTACHMENT',
    message: 'Attachment 1 (z.png) is not a valid PNG image: its header says it is 0×0 pixels.',
  });
  expect(rejected({ text: 'x', attachments: [image({ mediaType: 'image/gif', data: b64(gifHeader(0, 20)) })] }).message).toMatch(
    /not a valid GIF image: its header says it is 0×20 pixels/,
  );
  const wide = makePng(1, 1);
  wide.writeUInt32BE(0x80000000, 16);
  expect(rejected({ text: 'x', attachments: [image({ data: b64(wide) })] }).message).toMatch(
    /not a valid PNG image: its header says it is 2147483648×1 pixels/,
  );
  // Input a run accepted before the check (the workflow's patch says no) is taken again on replay.
  expect(parseInput({ text: 'x', attachments: [image({ data: b64(zeroPng) })] }, () => false).attachments).toHaveLength(1);
});

test('a refused image is left out of the rendered context, with a note in its input; other images stay', () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock: () => 0 });
  agent.enqueueInput({ text: 'two pictures', attachments: [image({ name: 'a.png' }), image({ name: 'b.png' })] });
  return agent
    .doStep({
      callModel: async () => ({ contents: ['x'], toolCalls: [], invocation: { providerId: 'f', specification: 'f', model: 'm' } }),
      executeTool: async () => {
        throw new Error('no tools');
      },
    })
    .then(() => {
      const refused = [{ seq: 1, index: 1, reason: 'bad image' }];
      const [input] = renderLiveContext(agent.state.entries, { refusedAttachments: refused });
      expect(input).toMatchObject({
        kind: 'model_input',
        sections: [{ content: 'two pictures\n\n[image b.png was refused by the provider and is left out: bad image]' }],
        attachments: [{ name: 'a.png' }],
      });
      expect(validateChatCompletionRequest({ model: 'gpt-4.1-mini', stream: true, messages: toOpenAIMessages([input], undefined) })).toBeNull();
      expect(renderLiveContext(agent.state.entries)[0]).toMatchObject({ attachments: [{ name: 'a.png' }, { name: 'b.png' }] }); // the entry keeps both
    });
});
