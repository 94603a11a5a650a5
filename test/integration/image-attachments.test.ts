/**
 * Image attachments end to end on the real dev server: an image sent with a turn reaches OpenAI and
 * Anthropic — through their official SDKs, against wire fakes that decode and check it as the services
 * do — in each provider's format. A large image enters a run's history once: in the update that carried
 * it (stored by reference by the offload codec), never again in model calls, answers or waits. At
 * continue-as-new the carried state holds it, like every entry: in the handing-over event of the old run
 * and the start of the new one, which are the same payload and so the same blob.
 */
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import type { temporal } from '@temporalio/proto';
import { BLOB_REF_ENCODING } from '../../common/codec/offload-codec';
import { livecontextDataConverter, payloadCodecs } from '../../common/codec/data-converter';
import { makePng } from '../fixtures/images';
import { maybeRecordHistory } from '../support/record-history';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

type Events = temporal.api.history.v1.IHistoryEvent[];

const { t, p, taskQueue } = useProviderServers('images');

const count = (text: string, marker: string) => text.split(marker).length - 1;
const isPayload = (v: object): v is Payload => 'data' in v && (v as Payload).data instanceof Uint8Array && 'metadata' in v;

/** How often `marker` occurs in the history's payloads as stored (offloaded payloads are references). */
function rawOccurrences(events: Events, marker: string): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (v instanceof Uint8Array) n += count(Buffer.from(v).toString('latin1'), marker);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(events);
  return n;
}

/**
 * Where `marker` occurs in the history's payloads once decoded (offloaded ones read back from the blob
 * store): one `<event type>: <blob key>` per occurrence.
 */
async function decodedOccurrences(events: Events, marker: string): Promise<string[]> {
  const codecs = payloadCodecs();
  const found: string[] = [];
  const walk = async (v: unknown, event: string): Promise<void> => {
    if (!v || typeof v !== 'object' || v instanceof Uint8Array) return;
    if (isPayload(v)) {
      const offloaded = Buffer.from(v.metadata?.encoding ?? []).toString() === BLOB_REF_ENCODING;
      const key = offloaded ? (JSON.parse(Buffer.from(v.data!).toString()) as { key: string }).key : 'inline';
      let decoded = [v];
      for (const codec of [...codecs].reverse()) decoded = await codec.decode(decoded);
      const n = count(Buffer.from(decoded[0].data ?? []).toString('latin1'), marker);
      for (let i = 0; i < n; i++) found.push(`${event}: ${key}`);
      return;
    }
    for (const x of Object.values(v)) await walk(x, event);
  };
  for (const e of events) {
    const attributes = Object.keys(e).find((k) => k.endsWith('EventAttributes') && e[k as keyof typeof e]);
    await walk(e, attributes?.replace(/EventAttributes$/, '') ?? 'unknown');
  }
  return found;
}

test('an image sent with a turn reaches OpenAI and Anthropic in their own formats', async () => {
  const photo = makePng(64, 48, { noise: true }).toString('base64');
  const chart = makePng(32, 32, { noise: true }).toString('base64');
  const agentId = uniqueId('img');
  p.openai.enqueue({ kind: 'stream', text: 'A noisy square.' });
  p.anthropic.enqueue({ kind: 'stream', text: 'Two noisy squares.' });
  const openaiBefore = p.openai.requests.length;
  const anthropicBefore = p.anthropic.requests.length;
  await withWorker({ taskQueue, models: p.models() }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    const first = await t.agents.ask(agentId, {
      text: 'What is in this photo?',
      attachments: [{ type: 'image', mediaType: 'image/png', data: photo, name: 'photo.png' }],
    });
    expect(first).toMatchObject({ status: 'answered', answer: { contents: ['A noisy square.'] } });
    await t.agents.configure(agentId, { model: 'anthropic:claude-sonnet-4-6' });
    const second = await t.agents.ask(agentId, { text: 'And this chart?', attachments: [{ type: 'image', mediaType: 'image/png', data: chart }] });
    expect(second).toMatchObject({ status: 'answered', answer: { contents: ['Two noisy squares.'] } });
    const history = await t.agents.history(agentId);
    expect(history.filter((e) => e.kind === 'model_input').map((e) => e.kind === 'model_input' && e.attachments?.length)).toEqual([1, 1]);
    // Small images stay inline (under the offload threshold), so the replay suite needs no blob store.
    await maybeRecordHistory(t.agents.handle(agentId), 'image-attachments_v1.json');
  });

  // Both requests passed the fakes' checks (which decode the image and compare it with its media type).
  // The images' base64 is named, so a failure prints the shape rather than kilobytes of noise.
  const named = (body: unknown) => JSON.parse(JSON.stringify(body).replaceAll(photo, '<photo>').replaceAll(chart, '<chart>'));
  const openai = p.openai.requests.slice(openaiBefore).map((r) => named(r.body));
  expect(openai).toHaveLength(1);
  expect(openai[0].messages).toHaveLength(1);
  expect(openai[0].messages[0]).toMatchObject({ role: 'user' });
  expect(openai[0].messages[0].content.slice(0, 3)).toEqual([
    { type: 'text', text: 'What is in this photo?' },
    { type: 'text', text: '[image: photo.png]' },
    { type: 'image_url', image_url: { url: 'data:image/png;base64,<photo>' } },
  ]);
  expect(openai[0].messages[0].content[3]).toMatchObject({ type: 'text', text: expect.stringMatching(/^# \[Live Screen\]/) });
  const anthropic = p.anthropic.requests.slice(anthropicBefore).map((r) => named(r.body));
  expect(anthropic).toHaveLength(1);
  const [user1, assistant, user2] = anthropic[0].messages;
  expect(assistant).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'A noisy square.' }] });
  expect(user1.content.slice(0, 3)).toMatchObject([
    { type: 'text', text: '[image: photo.png]' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '<photo>' } },
    { type: 'text', text: 'What is in this photo?' },
  ]);
  expect(user2.content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '<chart>' } });
  expect(user2.content[1]).toMatchObject({ type: 'text', text: 'And this chart?' });
});

test('a 1.5 MB image enters history once per run, by reference, also across continue-as-new', async () => {
  const png = makePng(730, 730, { noise: true }); // random pixels, stored uncompressed: 1.5 MB
  expect(png.length).toBeGreaterThan(1.5 * 1024 * 1024);
  const data = png.toString('base64');
  const marker = data.slice(data.length / 2, data.length / 2 + 64); // unique to this image (random pixels)
  const agentId = uniqueId('big-img');
  const openaiBefore = p.openai.requests.length;
  p.openai.respond = () => ({ kind: 'stream', text: 'Noise.', usage: { promptTokens: 1700, completionTokens: 2 } });
  try {
    await withWorker({ taskQueue, models: p.models() }, async () => {
      // Offloaded payloads leave the history small: a small budget makes the agent continue as new soon. A working
      // set the archive leaves whole keeps the image in the carried state (otherwise it would be sealed into a segment).
      const { firstExecutionRunId } = await t.agents.start(agentId, {
        model: 'openai:gpt-4.1-mini',
        historyBudgetBytes: 6_000,
        workingSetBytes: 64 * 1024 * 1024,
      });
      const handle = t.agents.handle(agentId);
      const outcome = await t.agents.ask(agentId, {
        text: 'Describe this image.',
        attachments: [{ type: 'image', mediaType: 'image/png', data, name: 'noise.png' }],
      });
      expect(outcome).toMatchObject({ status: 'answered' });
      // The model call estimated the image by its pixels (about 1,400 tokens), not its 2 MB of base64.
      if (outcome.status === 'answered') expect(outcome.answer.metadata?.estimated_input_tokens).toBeLessThan(2_000);

      // Within the run: once, in the update that carried it; history holds a reference to the blob.
      const firstRun = (await handle.fetchHistory()).events ?? [];
      expect(await decodedOccurrences(firstRun, marker)).toEqual([expect.stringMatching(/^workflowExecutionUpdateAccepted: [0-9a-f]{64}$/)]);
      expect(rawOccurrences(firstRun, marker)).toBe(0);
      expect(Math.max(...firstRun.map((e) => JSON.stringify(e).length))).toBeLessThan(64 * 1024);

      // More turns until the agent moves to a new run carrying its state (the image with it).
      for (let i = 0; i < 20 && (await handle.describe()).runId === firstExecutionRunId; i++) {
        expect(await t.agents.ask(agentId, `turn ${i}`)).toMatchObject({ status: 'answered' });
      }
      const { runId } = await handle.describe();
      expect(runId).not.toBe(firstExecutionRunId);
      expect(await t.agents.ask(agentId, 'and now?')).toMatchObject({ status: 'answered' });

      // The run that moved on holds it once more, in the state it handed over (as every entry is: the new
      // run starts from the whole agent); the new run holds it once, in that same state — the same blob.
      // Model calls, tool runs, answers and waits of either run never carry it.
      const oldRun = (await t.client.workflow.getHandle(agentId, firstExecutionRunId).fetchHistory()).events ?? [];
      const newRun = (await handle.fetchHistory()).events ?? [];
      const before = await decodedOccurrences(oldRun, marker);
      const after = await decodedOccurrences(newRun, marker);
      expect(before).toEqual([expect.stringMatching(/^workflowExecutionUpdateAccepted: /), expect.stringMatching(/^workflowExecutionContinuedAsNew: /)]);
      expect(after).toEqual([expect.stringMatching(/^workflowExecutionStarted: /)]);
      expect(after[0].split(': ')[1]).toBe(before[1].split(': ')[1]);
      expect(rawOccurrences([...oldRun, ...newRun], marker)).toBe(0);
    });
  } finally {
    p.openai.respond = undefined;
  }
  // Every model call, in either run, still showed the model the image.
  const requests = p.openai.requests.slice(openaiBefore);
  expect(requests.length).toBeGreaterThanOrEqual(3);
  for (const r of requests) expect(count(JSON.stringify(r.body), marker)).toBe(1);
});

test('without offloading, a client refuses an image too large to pass inline, and the agent lives on', async () => {
  // Temporal ends a workflow whose update payload is over its 2 MB limit: such an input must never leave.
  const dataConverter = livecontextDataConverter({ offload: false });
  const agents = new AgentClient(new Client({ connection: t.connection, dataConverter }), taskQueue);
  const agentId = uniqueId('inline-img');
  const data = makePng(730, 730, { noise: true }).toString('base64');
  const input = { text: 'look', attachments: [{ type: 'image' as const, mediaType: 'image/png' as const, data }] };
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ ok: () => ({ text: 'fine' }) })], dataConverter }, async () => {
    await agents.start(agentId, { model: 'scripted:ok' });
    const refusal =
      /^The input is 2\.0 MB as sent, over Temporal's 2 MB payload limit, and this client does not offload large payloads \(LIVECONTEXT_OFFLOAD=0\)/;
    await expect(agents.send(agentId, input)).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE', message: expect.stringMatching(refusal) });
    await expect(agents.signal(agentId, input)).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE' });
    // A smaller image still goes inline, and the agent answers as before.
    const small = makePng(64, 64, { noise: true }).toString('base64');
    expect(await agents.ask(agentId, { ...input, attachments: [{ ...input.attachments[0], data: small }] })).toMatchObject({ status: 'answered' });
    expect((await agents.handle(agentId).describe()).status.name).toBe('RUNNING');
    expect((await agents.state(agentId)).nextInputSeq).toBe(2);
  });
});

test('an image OpenAI refuses (400 invalid_image_format) is left out with a note the model sees; the call is asked again and the agent goes on', async () => {
  const bad = makePng(13, 7, { noise: true }); // its header is fine; the service "cannot decode" it
  const good = makePng(20, 10, { noise: true }).toString('base64');
  p.openai.refuseImage = (bytes) => bytes.equals(bad);
  const agentId = uniqueId('refused-img');
  const openaiBefore = p.openai.requests.length;
  try {
    await withWorker({ taskQueue, models: p.models() }, async () => {
      await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
      p.openai.enqueue({ kind: 'stream', text: 'I could not see the picture.' });
      const first = await t.agents.ask(agentId, {
        text: 'What is in x.png?',
        attachments: [{ type: 'image', mediaType: 'image/png', data: bad.toString('base64'), name: 'x.png' }],
      });
      expect(first).toMatchObject({ status: 'answered', answer: { contents: ['I could not see the picture.'] } });
      const [refused, retried] = p.openai.requests.slice(openaiBefore);
      expect(JSON.stringify(refused.body)).toContain('image_url');
      expect(JSON.stringify(retried.body)).not.toContain('image_url');
      const note = '[image x.png was refused by the provider and is left out: 400 The image data you provided does not represent a valid image.';
      expect(JSON.stringify(retried.body.messages.at(-1).content)).toContain(note);
      expect(await t.agents.state(agentId)).toMatchObject({ blockedOn: 'input' });
      expect((await t.agents.snapshot(agentId)).refusedAttachments).toEqual([
        { seq: 1, index: 0, reason: expect.stringMatching(/^400 The image data you provided/) },
      ]);

      // The next turns leave it out too; a good image goes through beside the note.
      p.openai.enqueue({ kind: 'stream', text: 'A noisy strip.' });
      await expect(
        t.agents.ask(agentId, { text: 'and this one?', attachments: [{ type: 'image', mediaType: 'image/png', data: good }] }),
      ).resolves.toMatchObject({ status: 'answered', answer: { contents: ['A noisy strip.'] } });
      const next = JSON.stringify(p.openai.requests.at(-1)!.body);
      expect(count(next, '"type":"image_url"')).toBe(1);
      expect(next).toContain(good.slice(0, 200));
      expect(next).toContain('[image x.png was refused by the provider');

      // An image whose header says 0×0 is refused at the door, with what is wrong, and the agent lives on.
      const empty = makePng(1, 1);
      empty.writeUInt32BE(0, 16);
      empty.writeUInt32BE(0, 20);
      await expect(
        t.agents.send(agentId, {
          text: 'and this?',
          attachments: [{ type: 'image', mediaType: 'image/png', data: empty.toString('base64'), name: 'empty.png' }],
        }),
      ).rejects.toMatchObject({
        cause: { type: 'UNSUPPORTED_ATTACHMENT', message: 'Attachment 1 (empty.png) is not a valid PNG image: its header says it is 0×0 pixels.' },
      });
      // As a signal (which cannot be refused) it is dropped by the agent, which goes on.
      await t.agents.signal(agentId, { text: 'and this?', attachments: [{ type: 'image', mediaType: 'image/png', data: empty.toString('base64') }] });
      p.openai.enqueue({ kind: 'stream', text: 'Still here.' });
      await expect(t.agents.ask(agentId, 'still there?')).resolves.toMatchObject({ inputSeq: 3, status: 'answered', answer: { contents: ['Still here.'] } });
      await maybeRecordHistory(t.agents.handle(agentId), 'refused-attachments_v1.json');
    });
  } finally {
    p.openai.refuseImage = undefined;
  }
});

test('Anthropic\'s refusal ("Could not process image") too: only the new image is left out, the one it took before stays', async () => {
  const good = makePng(24, 12, { noise: true }).toString('base64');
  const bad = makePng(11, 5, { noise: true });
  p.anthropic.refuseImage = (bytes) => bytes.equals(bad);
  const agentId = uniqueId('refused-img-a');
  const before = p.anthropic.requests.length;
  try {
    await withWorker({ taskQueue, models: p.models() }, async () => {
      await t.agents.start(agentId, { model: 'anthropic:claude-sonnet-4-6' });
      p.anthropic.enqueue({ kind: 'stream', text: 'A strip.' }, { kind: 'stream', text: 'The second one did not come through.' });
      await expect(
        t.agents.ask(agentId, { text: 'first', attachments: [{ type: 'image', mediaType: 'image/png', data: good, name: 'good.png' }] }),
      ).resolves.toMatchObject({ status: 'answered' });
      const second = await t.agents.ask(agentId, {
        text: 'second',
        attachments: [{ type: 'image', mediaType: 'image/png', data: bad.toString('base64'), name: 'bad.png' }],
      });
      expect(second).toMatchObject({ status: 'answered', answer: { contents: ['The second one did not come through.'] } });
      const requests = p.anthropic.requests.slice(before).map((r) => JSON.stringify(r.body));
      expect(requests).toHaveLength(3); // the first turn, the refused call, the call asked again
      expect(count(requests[2], '"type":"image"')).toBe(1);
      expect(requests[2]).toContain(good.slice(0, 200));
      expect(requests[2]).toMatch(/\[image bad\.png was refused by the provider and is left out: 400 .*Could not process image/);
    });
  } finally {
    p.anthropic.refuseImage = undefined;
  }
});
