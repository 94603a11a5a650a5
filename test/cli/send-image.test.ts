/**
 * `livecontext send --image FILE` as a user runs it: the images reach the agent with the text, named by
 * their files, wherever --image is on the line (after the text too); a missing or unsupported file is
 * one clear line, exit status 2, and nothing is sent.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import { unwrap } from '../../agent/index';
import { gifHeader, makePng } from '../fixtures/images';
import { cli } from '../support/cli';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('cli-image');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

/** Says which images the newest input carried. */
const describeImages = new ScriptedModelProvider({
  look: (req) => {
    const input = [...req.messages]
      .map(unwrap)
      .reverse()
      .find((m) => m.kind === 'model_input');
    const images = input?.kind === 'model_input' ? (input.attachments ?? []) : [];
    return { text: `saw ${images.length}: ${images.map((a) => `${a.name} (${a.mediaType})`).join(', ')}` };
  },
});

test('send --image attaches files; a bad file is refused before anything is sent', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lc-images-'));
  const png = makePng(40, 30);
  const files = { png: path.join(dir, 'chart.png'), gif: path.join(dir, 'anim.gif'), text: path.join(dir, 'notes.png') };
  writeFileSync(files.png, png);
  writeFileSync(files.gif, gifHeader(10, 10));
  writeFileSync(files.text, 'not an image, whatever its name says');
  const id = uniqueId('cli-img');
  await withWorker({ taskQueue, models: [describeImages] }, async () => {
    await t.agents.start(id, { model: 'scripted:look' });

    const sent = await cli(['send', id, '--image', files.png, '--image', files.gif, 'what', 'are', 'these?', '--wait'], { env });
    expect(sent).toMatchObject({ code: 0, stdout: 'saw 2: chart.png (image/png), anim.gif (image/gif)\n' });
    // Options after the text are options too: the picture is attached, and its path is not sent as text.
    const after = await cli(['send', id, 'what is in this picture', '--image', files.png, '--wait'], { env });
    expect(after).toMatchObject({ code: 0, stdout: 'saw 1: chart.png (image/png)\n' });
    const among = await cli(['send', id, 'what', 'is', '--image', files.png, 'this'], { env });
    expect(among).toMatchObject({ code: 2, stderr: expect.stringContaining('"--image" is among the words of the text') });

    const missing = await cli(['send', id, '--image', path.join(dir, 'gone.png'), 'look'], { env });
    expect(missing).toMatchObject({ code: 2, stdout: '', stderr: `livecontext: Cannot attach ${path.join(dir, 'gone.png')}: no such file.\n` });
    const unsupported = await cli(['send', id, '--image', files.text, 'look'], { env });
    expect(unsupported).toMatchObject({ code: 2, stderr: `livecontext: Cannot attach ${files.text}: not a PNG, JPEG, GIF or WebP image.\n` });
    const directory = await cli(['send', id, '--image', dir, 'look'], { env });
    expect(directory).toMatchObject({ code: 2, stderr: `livecontext: Cannot attach ${dir}: not a file.\n` });

    // Only the first two sends reached the agent, with the images as they were on disk.
    const inputs = (await t.agents.history(id)).filter((e) => e.kind === 'model_input');
    expect(inputs).toHaveLength(2);
    expect(inputs[1]).toMatchObject({
      sections: [{ content: 'what is in this picture' }],
      attachments: [{ type: 'image', mediaType: 'image/png', name: 'chart.png' }],
    });
    expect(inputs[0]).toMatchObject({
      sections: [{ content: 'what are these?' }],
      attachments: [
        { type: 'image', mediaType: 'image/png', name: 'chart.png', data: png.toString('base64') },
        { type: 'image', mediaType: 'image/gif', name: 'anim.gif', data: gifHeader(10, 10).toString('base64') },
      ],
    });
    expect((await t.agents.state(id)).inboxLength).toBe(0);
  });
  const help = await cli(['send', '--help'], { env });
  expect(help.stdout).toContain('[--image FILE]…');
});
