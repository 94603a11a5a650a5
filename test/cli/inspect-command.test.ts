/**
 * `livecontext inspect AGENT --call SEQ`: the request a model call sent (an image in it), checked against
 * the call's fingerprint — the summary and the body, or --json; --short cuts the image's data; a seq that
 * is not a model call, or no --call, is one line and a non-zero exit.
 */
import { createHash } from 'node:crypto';
import { makePng } from '../fixtures/images';
import { cli } from '../support/cli';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('cli-inspect');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

test('prints the request as sent, checked; --short --json; bad calls refused', async () => {
  const photo = makePng(64, 48, { noise: true }).toString('base64');
  p.openai.enqueue({ kind: 'stream', text: 'A square.' });
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const id = uniqueId('cli-inspect');
    await t.agents.start(id, { model: 'openai:gpt-4.1-mini' });
    await t.agents.ask(id, { text: 'What is this?', attachments: [{ type: 'image', mediaType: 'image/png', data: photo }] });
    const wire = p.openai.requests.at(-1)!.raw;
    const seq = (await t.agents.history(id)).find((e) => e.kind === 'model_output')!.seq;

    const plain = await cli(['inspect', id, '--call', String(seq)], { env });
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    const [title, context, verdict] = plain.stdout.split('\n');
    expect(title).toBe(`Model call #${seq} of ${id}: openai:gpt-4.1-mini, openai-chat-completions`);
    expect(context).toMatch(/^Context: entries #1–#1 \(bound #1\), input budget \d+ tokens; ~\d+ tokens estimated; \d+ tool\(s\)$/);
    expect(verdict).toBe(`sha256 ${createHash('sha256').update(wire).digest('hex')}: matches the call's fingerprint — this is the request as it was sent.`);
    expect(plain.stdout).toContain(photo);

    const short = await cli(['inspect', id, '--call', String(seq), '--short', '--json'], { env });
    expect(short.code).toBe(0);
    const json = JSON.parse(short.stdout);
    expect(json).toMatchObject({ reproduced: true, warnings: [], recorded: { sha256: json.sha256 } });
    expect(short.stdout).not.toContain(photo);
    expect(short.stdout).toMatch(/data:image\/png;base64,.*… \[\d+ more characters\]/);

    const notACall = await cli(['inspect', id, '--call', String(seq - 1)], { env });
    expect(notACall.code).not.toBe(0);
    expect(notACall.stderr).toMatch(/is a model_input entry; a model call is a model_output entry/);
    expect(await cli(['inspect', id], { env })).toMatchObject({ code: 2, stderr: expect.stringMatching(/--call SEQ/) });
    expect(await cli(['inspect', id, '--call', 'x'], { env })).toMatchObject({ code: 2 });
  });
});
