/**
 * `livecontext notebook`: shows the agent's memory notebook, `--set`/`--append` write it as the host
 * (recorded in history, seen by the model at its next call); a bad write is one line, nothing recorded.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { tasksScript } from '../fixtures/scripts';
import { cli } from '../support/cli';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('cli-notebook');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

test('show, set, append; the model sees it; a write too large is refused', async () => {
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ tasks: tasksScript })] }, async () => {
    const id = uniqueId('nb');
    await t.agents.start(id, { model: 'scripted:tasks' });
    expect(await cli(['notebook', id], { env })).toMatchObject({ code: 0, stdout: '(the notebook is empty)\n' });
    expect(await cli(['notebook', id, '--set', 'ship on friday'], { env })).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Notebook of ".*" set \(14 characters, history entry #1\)\.\n$/),
    });
    expect(await cli(['notebook', id, '--append', '; tests first', '--json'], { env })).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('"notebook": "ship on friday; tests first"'),
    });
    const tooLarge = await cli(['notebook', id, '--set', 'x'.repeat(70_000)], { env });
    expect(tooLarge.code).not.toBe(0);
    expect(tooLarge.stderr).toMatch(/at most 65536/);
    expect(tooLarge.stderr.trim().split('\n')).toHaveLength(1);
    expect(await cli(['notebook', id, '--set', 'a', '--append', 'b'], { env })).toMatchObject({ code: 2 });
    expect(await cli(['send', id, 'show', '--wait'], { env })).toMatchObject({ code: 0, stdout: 'tasks: (none) / notebook: ship on friday; tests first\n' });
    const writes = (await t.agents.history(id)).filter((e) => e.kind === 'widget_write');
    expect(writes).toHaveLength(2);
  });
});
