/**
 * 100 agents taking turns at once on one worker, on a machine kept busy (a CPU-bound child process
 * for the test's length, on top of whatever else runs): every turn of every agent is answered, each
 * with the answer to its own input, and each input is in its agent's history exactly once, in order.
 * Under load Temporal may refuse an update before accepting it (too many in flight, an aborted or
 * unprocessed update); the client sends it again only then, so nothing is lost and nothing doubled.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { ScriptedModelProvider } from '../../activities/index';
import { echoScript } from '../fixtures/scripts';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('concurrent');

const AGENTS = 100;
const TURNS = 4;

/** A busy loop in its own process until killed: the "loaded machine". */
function cpuHog(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (let x = 0; ; x = Math.sqrt(x + 1));'], { stdio: 'ignore' });
}

test(`${AGENTS} agents × ${TURNS} turns at once on a loaded machine: every turn answered, each input taken once`, async () => {
  const ids = Array.from({ length: AGENTS }, (_, i) => uniqueId(`concurrent-${i}`));
  const hog = cpuHog();
  try {
    await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
      await Promise.all(ids.map((id) => t.agents.start(id, { model: 'scripted:echo' })));
      const answers = await Promise.all(
        ids.map(async (id) => {
          const texts: string[] = [];
          for (let turn = 1; turn <= TURNS; turn++) {
            const outcome = await t.agents.ask(id, `${id} turn ${turn}`);
            texts.push(outcome.status === 'answered' ? outcome.answer.contents.join('') : `(${outcome.status})`);
          }
          return texts;
        }),
      );
      for (const [i, id] of ids.entries()) expect(answers[i]).toEqual(Array.from({ length: TURNS }, (_, k) => `echo: ${id} turn ${k + 1}`));

      // Each input once, in the order asked, each followed by its own answer.
      await Promise.all(
        ids.map(async (id) => {
          const history = (await t.agents.history(id)).filter((e) => e.kind === 'model_input' || e.kind === 'model_output');
          const said = history.map((e) => (e.kind === 'model_input' ? e.sections.map((s) => s.content).join('') : e.contents.join('')));
          expect(said).toEqual(Array.from({ length: TURNS }, (_, k) => [`${id} turn ${k + 1}`, `echo: ${id} turn ${k + 1}`]).flat());
        }),
      );
    });
  } finally {
    hog.kill('SIGKILL');
  }
}, 180_000);
