/**
 * `livecontext policy` (the agent's tool rules: shown, set in order, refused when malformed) and
 * `livecontext answer` (its waits: listed; an approval another door answered first is refused, naming
 * that door, who and when, and nothing changes).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli } from '../support/cli';
import { uniqueId, waitingForApproval, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('cli-policy');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-policy-ws-'));

test('policy shows and sets the rules; answer lists the waits and refuses a second answer naming the first', async () => {
  const id = uniqueId('cli-policy');
  await withWorker({ taskQueue, workspaceRoot }, async () => {
    await t.agents.start(id, { model: 'demo:offline' });
    expect(await cli(['policy', id], { env })).toMatchObject({ code: 0, stdout: `"${id}" has no tool rules: each tool's own approval policy applies.\n` });
    const set = await cli(['policy', id, '--rule', 'ask delete_*', '--rule', 'deny run_command command~rm'], { env });
    expect(set).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Tool rules of ".*" set \(history entry #\d+\): ask delete_\*; deny run_command command~rm\.\n$/),
    });
    expect(await cli(['policy', id], { env })).toMatchObject({ code: 0, stdout: '1. ask delete_*\n2. deny run_command command~rm\n' });
    const bad = await cli(['policy', id, '--rule', 'maybe x'], { env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--rule is "allow\|ask\|deny TOOL/);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);

    expect(await cli(['send', id, 'buy milk', '--wait'], { env })).toMatchObject({ code: 0 });
    await t.agents.send(id, 'delete note 1');
    const waiting = await waitingForApproval(t.agents, id);
    const { waitId } = waiting.waits![0];
    expect(waiting.waits![0].reason).toBe("the agent's rule 1 (ask delete_*) asks a person first");
    expect(await cli(['answer', id], { env })).toMatchObject({ code: 0, stdout: expect.stringContaining(`${waitId}  approval delete_file`) });

    await t.agents.answerWait(id, waitId, { approved: false, reason: 'keep it' }, { door: 'rest', by: 'ana' });
    const late = await cli(['answer', id, waitId, '--approve'], { env });
    expect(late.code).not.toBe(0);
    expect(late.stderr).toMatch(new RegExp(`Wait ${waitId} was already answered by rest / ana at \\S+ \\(denied\\); this answer changes nothing\\.`));
    const rules = (await t.agents.history(id)).filter((e) => e.kind === 'tool_rules');
    expect(rules).toHaveLength(1);
  });
});
