/**
 * Output to a pipe arrives whole: an agent whose history is several MB is exported, listed and answered
 * through a pipe whose reader is slow (and through gzip), and what arrives parses as the same JSON the
 * client API returns. A reader that leaves early (`| head`) ends the CLI quietly.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ScriptedModelProvider } from '../../activities/index';
import { echoScript } from '../fixtures/scripts';
import { testAddress, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const BIN = path.resolve(__dirname, '../../bin/livecontext.js');
const { t, taskQueue } = useTestConnection('pipes');
const env = { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: taskQueue, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };

interface Piped {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs a shell pipeline whose first command is the CLI (`after` is the rest of it). */
function pipeline(cliArgs: string[], after: string, input = ''): Promise<Piped> {
  const quoted = [process.execPath, BIN, ...cliArgs].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', `${quoted}${after}`], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(input);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks), stderr }));
  });
}

/** A reader that starts reading only once the CLI has long filled the pipe's buffer. */
const SLOW_READER = ' | (sleep 3; cat)';

test('export, history --json and send --wait of a several-MB agent arrive whole through a slow pipe', async () => {
  const id = uniqueId('big');
  const big = (i: number) => `${i}:${'abcdefghij'.repeat(20_000)}`; // ~200 KB per input, echoed back
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    for (let i = 0; i < 8; i++) expect(await t.agents.ask(id, big(i))).toMatchObject({ status: 'answered' });

    const exported = await pipeline(['export', id], SLOW_READER);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/^Workspace files are not in an export: [^\n]*\n$/); // the one note, on stderr: stdout is the snapshot alone
    expect(exported.stdout.length).toBeGreaterThan(3_000_000);
    // Every entry, archived ones too, as a version-1 snapshot: the agent as its workflow holds it, whole again.
    const { archive, ...working } = await t.agents.snapshot(id);
    expect(archive).toBeDefined(); // 3 MB of history: most of it is archived
    expect(JSON.parse(exported.stdout.toString('utf8'))).toEqual({ ...working, version: 1, entries: await t.agents.history(id), sourceAgentId: id });

    const history = await pipeline(['history', id, '--json'], ' | gzip');
    expect(history).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(gunzipSync(history.stdout).toString('utf8'))).toEqual(await t.agents.history(id));

    const answered = await pipeline(['send', id, '-', '--wait'], SLOW_READER, `${big(8)}\n`);
    expect(answered).toMatchObject({ code: 0, stderr: '' });
    expect(answered.stdout.toString('utf8')).toBe(`echo: ${big(8)}\n`);

    const head = await pipeline(['history', id, '--json'], ' | head -c 100');
    expect(head).toMatchObject({ code: 0, stderr: '' });
    expect(head.stdout.length).toBe(100);
  });
}, 300_000);
