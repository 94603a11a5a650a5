/**
 * Every door costs what `ask` costs: a plain turn (input, one model call, answer) through each way in —
 * AgentClient.ask, the CLI's `send --wait` and chat, the REST input route with a wait, an AG-UI run and
 * the MCP `send_message` tool — adds no more history events than through `ask`. Counted from history.
 */
import { HttpAgent } from '@ag-ui/client';
import { temporal } from '@temporalio/proto';
import { cli } from '../support/cli';
import { callTool, connectMcp } from '../support/mcp-host';
import { uniqueId } from '../support/temporal';
import { useRestGateway } from './rest-support';

jest.setTimeout(240_000);

const rest = useRestGateway('doors');
type Event = temporal.api.history.v1.IHistoryEvent;
const kinds = (events: Event[]) => events.map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0].replace('EVENT_TYPE_', ''));

/**
 * The events one plain turn through `door` adds to a fresh agent's history, after a first turn through
 * the same door (what a run does once, such as asking for a behaviour change, is not a turn's cost).
 */
async function turnEvents(door: (agentId: string, text: string) => Promise<unknown>): Promise<string[]> {
  const agentId = uniqueId('door');
  const handle = await rest.t.agents.start(agentId, { model: 'scripted:echo' });
  await door(agentId, 'first');
  await answers(agentId, 1);
  const before = (await handle.fetchHistory()).events ?? [];
  await door(agentId, 'hello');
  await answers(agentId, 2);
  await new Promise((r) => setTimeout(r, 1500)); // anything a door does after the answer
  return kinds(((await handle.fetchHistory()).events ?? []).slice(before.length));
}

/** Until the agent's history has `n` answers (a door may return before its turn's end: an accepted input). */
async function answers(agentId: string, n: number): Promise<void> {
  for (;;) {
    const h = await rest.t.agents.history(agentId);
    if (h.filter((e) => e.kind === 'model_output').length >= n) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a plain turn costs the same events through every door', async () => {
  const env = { LIVECONTEXT_TASK_QUEUE: rest.t.agents.taskQueue };
  const ask = await turnEvents((id, text) => rest.t.agents.ask(id, text));
  const doors: Record<string, string[]> = {
    'cli send --wait': await turnEvents((id, text) => cli(['send', id, text, '--wait'], { env })),
    'cli chat': await turnEvents((id, text) => cli(['chat', id], { env, input: `${text}\n` })),
    'REST input ?wait': await turnEvents((id, text) =>
      fetch(`${rest.gw.url}/agents/${id}/input?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) }),
    ),
    'AG-UI run': await turnEvents(async (id, text) => {
      const agent = new HttpAgent({ url: `${rest.gw.url}/ag-ui`, threadId: id });
      agent.addMessage({ id: `user-${text}`, role: 'user', content: text });
      await agent.runAgent();
    }),
    'MCP send_message': await turnEvents(async (id, text) => {
      const mcp = await connectMcp(rest.gw.url);
      await callTool(mcp, 'send_message', { agent_id: id, text });
      await mcp.close();
    }),
  };
  expect(ask).toHaveLength(11); // docs/cost.md: a plain turn adds 11 events
  for (const [door, events] of Object.entries(doors)) {
    // The events are shown when a door costs more, so a failure says what it added.
    expect({ door, events: events.length <= ask.length ? 'as ask' : events }).toEqual({ door, events: 'as ask' });
  }
});
