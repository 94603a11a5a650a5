/** The chaos suite on the shared dev server: everything it counts as damage must be zero. */
import { runChaos } from './chaos-suite';
import { workflowBundle } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('chaos');

test('20 agents in tool loops, 5 worker SIGKILLs, provider faults: nothing lost, duplicated or re-run', async () => {
  const report = await runChaos({ agents: t.agents, taskQueue, workflowBundle: workflowBundle(), log: (l) => process.stderr.write(`${l}\n`) });
  process.stderr.write(`chaos report: ${JSON.stringify(report)}\n`);
  expect(report).toMatchObject({
    agents: 20,
    agentsFinished: 20,
    inputsLost: 0,
    inputsDuplicated: 0,
    completedToolCallsReExecuted: 0,
    replayFailures: 0,
  });
  expect(report.toolCallsCompleted).toBe(20 * 3 * 2);
  expect(Object.values(report.faultsInjected).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
}, 300_000);
