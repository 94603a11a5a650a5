/** The agent commands of the CLI (what they do; parsing and errors live in cli.ts). */
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { type AgentSnapshot, type HistoryEntry, InputRejectedError, type TurnOutcome, checkPlainInputKey, readSnapshot } from '../agent/index';
import type { AgentClient } from '../client/agent-client';
import { outcomeText } from '../client/outcome-text';
import type { Values } from './argv';
import { runChat } from './chat';
import { UserError, connectAgents, defaultModel } from '../client/connect';
import { formatEntry } from './format';
import { printList } from './list-view';
import { sideBySide } from './compare-view';
import { readImageFiles } from './image-files';
import { readSchemaFile } from './schema-file';
import { describeContext, describeState, runStateWord } from '../client/state-view';
import { checkModel, modelWarning } from './model-check';
import { watchWorkerWhile } from './worker-watch';
import { budgetsOption } from './budget-option';
import { contextOption } from './context-option';
import { safeFolderName } from '../activities/tools/workspace-folder';
import { terminalJson, terminalSafe, terminalText } from './terminal-text';
import { NEEDS_PERSON, TIMED_OUT, approvalNotice, questionNotice, untilApprovalNeeded } from './person-wait';

export type { Values };
const str = (v: Values, k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);

export function need(value: string | undefined, name: string): string {
  if (!value) throw new UserError(`Missing <${name}>.`);
  return value;
}

/** `--fallback-models a,b` as a checked list; `''` is the empty list (configure: no fallback). */
function fallbackModels(v: Values): string[] | undefined {
  const list = str(v, 'fallback-models');
  return list === undefined
    ? undefined
    : list
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean)
        .map(checkModel);
}

/** A line of output; whatever came from outside in it (ids, model and tool text) cannot steer the terminal. */
const show = (line: string) => console.log(terminalText(line));
const print = (json: boolean, data: unknown, text: () => string) => (json ? console.log(terminalJson(data)) : show(text()));
/** Notices beside the output (stdout stays what the command prints, --json included). */
const say = (line: string) => console.error(terminalText(`livecontext: ${line}`));
const warn = (line: string | undefined) => line && say(`warning: ${line}`);

/** Fails, saying why, when the agent has stopped or its run ended; unknown ids fail in what comes next. */
async function expectRunning(agentId: string, agents: AgentClient): Promise<void> {
  const closed = await notRunningReason(agentId, agents);
  if (closed) throw new Error(closed);
}

export async function startCmd(agentId: string, v: Values) {
  const model = checkModel(str(v, 'model') ?? defaultModel());
  modelCallsOption(v); // checked before connecting
  const { agents } = await connectAgents();
  const system = str(v, 'system');
  const tools = str(v, 'tools');
  const fallbacks = fallbackModels(v);
  const budgets = budgetsOption(v.budget);
  const context = contextOption(v);
  const modelCalls = modelCallsOption(v);
  try {
    await agents.start(agentId, {
      model,
      ...(modelCalls ? { modelCalls } : {}),
      ...(budgets ? { budgets } : {}),
      ...(context ? { context } : {}),
      ...(fallbacks?.length ? { fallbackModels: fallbacks } : {}),
      ...(system ? { systemInstruction: system } : {}),
      ...(tools
        ? {
            tools: tools
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
          }
        : {}),
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) throw new UserError(`Agent "${agentId}" already exists.`);
    if (err instanceof InputRejectedError && err.code === 'BAD_AGENT_ID') throw new UserError(err.message);
    throw err;
  }
  show(`Started agent "${agentId}" with model ${model}.`);
  warn(await modelWarning(agents, agentId, model, agents.taskQueue));
}

export async function sendCmd(agentId: string, text: string, v: Values): Promise<number> {
  const attachments = readImageFiles([v.image ?? []].flat().filter((f): f is string => typeof f === 'string')); // before connecting: a bad file sends nothing
  const schemaFile = str(v, 'schema');
  const responseSchema = schemaFile !== undefined ? readSchemaFile(schemaFile) : undefined;
  const timeoutMs = timeoutOption(str(v, 'timeout'), !!v.wait);
  const { agents } = await connectAgents();
  await expectRunning(agentId, agents);
  await agents.requireWorker(agentId); // before the watch: no worker is said at once, without notices
  const leaving = 'Ctrl-C stops waiting; the input may still be taken later.';
  const idempotencyKey = str(v, 'idempotency-key');
  try {
    checkPlainInputKey(idempotencyKey);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  const input = {
    text,
    ...(attachments.length ? { attachments } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    ...(responseSchema ? { responseSchema } : {}),
  };
  const duplicateNotice = (inputSeq: number) => say(`Input with idempotency key "${idempotencyKey}" was taken before, as input #${inputSeq}: not sent again.`);
  if (!v.wait) {
    const { inputSeq, duplicate } = await watchWorkerWhile(agents.send(agentId, input), {
      agents,
      agentId,
      awaiting: 'the agent to take the input',
      leaving,
      say,
      slowNotice: true,
    });
    if (duplicate) duplicateNotice(inputSeq);
    print(!!v.json, { inputSeq, ...(duplicate ? { duplicate } : {}) }, () => `Accepted as input #${inputSeq}.`);
    return 0;
  }
  const kept = `Ctrl-C stops waiting; the agent keeps the input, and \`livecontext history ${agentId}\` shows the answer later.`;
  // One update for the input and its answer, as `ask` (send + waitForAnswer would be two, and five more
  // history events). The answer, or a person needed first (an approval), or the time given runs out:
  // whichever comes first.
  const asked = await agents.askTracked(agentId, input);
  await watchWorkerWhile(asked.taken, { agents, agentId, awaiting: 'the agent to take the input', leaving, say, slowNotice: true });
  const watching = new AbortController();
  const answer = watchWorkerWhile(asked.outcome, { agents, agentId, awaiting: 'the answer', leaving: kept, say });
  const approvals = untilApprovalNeeded(agents, agentId, watching.signal).then(async (calls) => {
    const { inputSeq } = await asked.accepted();
    return { status: 'needs_approval' as const, inputSeq, waitingFor: calls };
  });
  const first = await within(timeoutMs, Promise.race([answer, approvals])).finally(() => watching.abort());
  answer.catch(() => undefined); // a wait left behind may fail as the process ends
  if (first === TIMEOUT) {
    say(`No answer within ${str(v, 'timeout')} s; the agent keeps the input, and \`livecontext history ${agentId}\` shows the answer later.`);
    return TIMED_OUT;
  }
  if (first.status === 'needs_approval') {
    for (const line of approvalNotice(agentId, first.inputSeq, first.waitingFor)) say(line);
    if (v.json) print(true, first, () => '');
    return NEEDS_PERSON;
  }
  const { duplicate, ...outcome } = first;
  if (duplicate) duplicateNotice(outcome.inputSeq);
  if (outcome.status === 'asked') {
    print(!!v.json, outcome, () => outcome.question);
    say(questionNotice(agentId));
    return NEEDS_PERSON;
  }
  if (responseSchema && !v.json) return printTypedAnswer(outcome);
  print(!!v.json, outcome, () => outcomeText(outcome));
  return ['answered', 'ignored'].includes(outcome.status) ? 0 : 1;
}

const TIMEOUT = Symbol('timeout');
/** `work`, or TIMEOUT if `ms` pass first; no `ms`: `work`. */
async function within<T>(ms: number | undefined, work: Promise<T>): Promise<T | typeof TIMEOUT> {
  if (ms === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const out = new Promise<typeof TIMEOUT>((resolve) => (timer = setTimeout(() => resolve(TIMEOUT), ms)));
  try {
    return await Promise.race([work, out]);
  } finally {
    clearTimeout(timer);
  }
}

/** `--timeout SECONDS` as milliseconds: it bounds the wait for the answer, once the agent took the input. */
function timeoutOption(value: string | undefined, wait: boolean): number | undefined {
  if (value === undefined) return undefined;
  if (!wait) throw new UserError('--timeout bounds the wait for the answer: give --wait with it.');
  const seconds = Number(value);
  if (!value.trim() || !Number.isFinite(seconds) || seconds <= 0) throw new UserError(`--timeout takes a number of seconds, not "${value}".`);
  return seconds * 1000;
}

/** A typed answer's JSON, indented, on stdout (for a program to read); any other end of the turn fails. */
function printTypedAnswer(outcome: TurnOutcome): number {
  if (outcome.status !== 'answered') {
    say(`no typed answer: ${outcomeText(outcome)}`);
    return 1;
  }
  const text = outcome.answer.contents.join('');
  try {
    console.log(terminalJson(JSON.parse(text)));
  } catch {
    show(text); // a worker without typed answers answered in text: shown, and said
    say('the answer is not JSON: does the worker support typed answers?');
    return 1;
  }
  return 0;
}

export async function chatCmd(agentId: string) {
  const { agents } = await connectAgents();
  await expectRunning(agentId, agents);
  await agents.state(agentId); // an unknown id, or no worker, fails here with a clear line
  await runChat({ agents, agentId, input: process.stdin, output: process.stdout, interactive: !!process.stdin.isTTY });
}

export async function stateCmd(agentId: string, v: Values) {
  const { agents } = await connectAgents();
  // A run that stopped, failed or was terminated may still answer queries from its history: that is not a state.
  await expectRunning(agentId, agents);
  const s = await agents.state(agentId);
  // The tree: each sub-agent's own state, as far as it can be read now (a child that ended says so).
  const children: Record<string, string> = {};
  await Promise.all(
    (s.subAgents ?? [])
      .filter((c) => c.agentId)
      .map(async (c) => {
        children[c.agentId] = await agents.state(c.agentId).then(
          (cs) => runStateWord(cs),
          async () => (await notRunningReason(c.agentId, agents).catch(() => undefined)) ?? 'not readable now',
        );
      }),
  );
  const running = v.json ? [] : (await agents.toolProgress(agentId).catch(() => [])).map((p) => p.details);
  const forks = v.json ? [] : await agents.forks(agentId).catch(() => []); // a namespace without LivecontextForkedFrom lists none
  print(!!v.json, s, () => describeState(agentId, s, children, running, forks));
}

/**
 * Why the agent `agentId` is not running — stopped (with the reason it was given), terminated, failed,
 * timed out, cancelled — in one line; undefined while it runs or if there is no such agent.
 */
export async function notRunningReason(agentId: string, agents?: AgentClient): Promise<string | undefined> {
  agents ??= (await connectAgents()).agents;
  const handle = agents.handle(agentId);
  const description = await handle.describe().catch((err) => {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  });
  const status = description?.status.name;
  if (!description || status === 'RUNNING') return undefined;
  const at = description.closeTime ? ` at ${description.closeTime.toISOString()}` : '';
  if (status === 'COMPLETED') {
    // The agent workflow's result says why it stopped (`livecontext stop` or the stop signal's reason).
    const result = (await handle.result().catch(() => undefined)) as { reason?: unknown } | undefined;
    const reason = typeof result?.reason === 'string' && result.reason ? clip(result.reason) : 'no reason given';
    return `Agent "${agentId}" stopped: ${reason} (at ${description.closeTime?.toISOString() ?? 'an unknown time'}). \`livecontext start ${agentId}\` starts a new one with this id.`;
  }
  const why = await handle.result().then(
    () => undefined,
    (err: { cause?: { message?: string } }) => clip(err?.cause?.message ?? ''),
  );
  const endings: Record<string, string> = { TERMINATED: 'was terminated', FAILED: 'failed', TIMED_OUT: 'timed out', CANCELLED: 'was cancelled' };
  const what = endings[status ?? ''] ?? `ended (${status})`;
  return `Agent "${agentId}" is not running: its run ${what}${at}${why ? ` (${status === 'TERMINATED' ? 'reason: ' : ''}${why})` : ''}.`;
}

/** A message on one line, cut to a length that fits one. */
const clip = (text: string, max = 200) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/**
 * `history`: page by page (archived entries from the archive), each printed as it comes, so an agent of
 * any age is shown in bounded memory. `--json` prints one JSON array all the same.
 */
export async function historyCmd(agentId: string, v: Values) {
  const after = wholeNumber(str(v, 'after'), '--after', 0) ?? 0;
  let left = wholeNumber(str(v, 'limit'), '--limit', 1) ?? Number.POSITIVE_INFINITY;
  const { agents } = await connectAgents();
  let cursor: number | null = after;
  let printed = 0;
  const write = async (text: string) => {
    if (!process.stdout.write(text)) await once(process.stdout, 'drain');
  };
  while (cursor !== null && left > 0) {
    const page = await agents.entries(agentId, { afterSeq: cursor, limit: Math.min(500, left) });
    // What a rewind took out: left out, or with --all shown and marked (it stays in history either way).
    const out = (seq: number) => !!page.rewound?.some(([from, to]) => seq >= from && seq <= to);
    const entries = (v.all ? page.entries : page.entries.filter((e) => !out(e.seq))).slice(0, left);
    const lines = (e: HistoryEntry) => (out(e.seq) ? formatEntry(e).map((l) => l.replace(/^#(\d+) /, '#$1 (rewound) ')) : formatEntry(e));
    if (v.json) await write(entries.map((e) => `${printed++ ? ',' : '['}\n${terminalJson(e)}`).join(''));
    else if (entries.length) await write(`${terminalText(entries.flatMap(lines).join('\n'))}\n`);
    left -= entries.length;
    cursor = page.nextAfterSeq;
  }
  if (v.json) await write(printed ? '\n]\n' : '[]\n');
}

/** A whole number option (at least `min`), or undefined when not given. */
function wholeNumber(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!value.trim() || !Number.isInteger(n) || n < min) throw new UserError(`${name} takes a whole number of at least ${min}, not "${value}".`);
  return n;
}

export async function listCmd(v: Values) {
  const { agents } = await connectAgents();
  printList(v, await agents.list({ all: !!v.all }));
}

export async function configureCmd(agentId: string, v: Values) {
  const model = str(v, 'model');
  const system = str(v, 'system');
  const fallbacks = fallbackModels(v);
  const budgets = budgetsOption(v.budget);
  const contextGiven = contextOption(v) !== undefined; // checked before connecting
  const modelCalls = modelCallsOption(v);
  if (!model && system === undefined && !fallbacks && !budgets && !contextGiven && !modelCalls)
    throw new UserError('Nothing to change: give --model, --fallback-models, --budget, a context option, --model-calls and/or --system.');
  const { agents } = await connectAgents();
  // The options given change the agent's policy; what they leave out stays as it is.
  const context = contextGiven ? contextOption(v, (await agents.state(agentId)).config.context) : undefined;
  const s = await agents.configure(agentId, {
    ...(budgets ? { budgets } : {}),
    ...(context ? { context } : {}),
    ...(model ? { model: checkModel(model) } : {}),
    ...(fallbacks ? { fallbackModels: fallbacks } : {}),
    ...(modelCalls ? { modelCalls } : {}),
    ...(system !== undefined ? { systemInstruction: system } : {}),
  });
  const then = s.config.fallbackModels?.length ? `, then ${s.config.fallbackModels.join(', ')}` : '';
  print(
    !!v.json,
    s,
    () =>
      `Agent "${agentId}": model ${s.config.model}${then}${s.config.modelCalls === 'local' ? ' (local model calls)' : ''}; system instruction ${s.systemInstruction ? `"${s.systemInstruction.slice(0, 60)}"` : '(none)'}${context ? `; ${describeContext(s.config.context)}` : ''}.`,
  );
  if (model) warn(await modelWarning(agents, agentId, s.config.model, await agents.agentTaskQueue(agentId)));
}

export async function notebookCmd(agentId: string, v: Values) {
  const set = str(v, 'set');
  const append = str(v, 'append');
  if (set !== undefined && append !== undefined) throw new UserError('Give --set or --append, not both.');
  const { agents } = await connectAgents();
  if (set === undefined && append === undefined) {
    const { notebook } = await agents.state(agentId);
    print(!!v.json, { notebook }, () => (notebook.trim() ? notebook : '(the notebook is empty)'));
    return;
  }
  const write = set !== undefined ? { set } : { append: append! };
  const r = await agents.updateNotebook(agentId, { ...write, by: process.env.USER ?? 'cli' });
  print(!!v.json, r, () => `Notebook of "${agentId}" ${set !== undefined ? 'set' : 'appended to'} (${r.notebook.length} characters, history entry #${r.seq}).`);
}

export async function decideCmd(agentId: string, toolCallId: string, approved: boolean, v: Values) {
  const { agents } = await connectAgents();
  const reason = str(v, 'reason');
  await agents.decide(agentId, { toolCallId, approved, by: process.env.USER ?? 'cli', door: 'cli', ...(reason ? { reason } : {}) });
  show(`${approved ? 'Approved' : 'Denied'} ${toolCallId}.`);
}

export async function resolveCmd(agentId: string, toolCallId: string, v: Values) {
  const done = str(v, 'done');
  const failed = str(v, 'failed');
  const retry = v.retry === true;
  if ([done !== undefined, failed !== undefined, retry].filter(Boolean).length !== 1) {
    throw new UserError('Give exactly one of --done TEXT (it happened), --failed TEXT (it did not) or --retry (run it again).');
  }
  const by = process.env.USER ?? 'cli';
  const how = done !== undefined ? { done } : failed !== undefined ? { failed } : { retry: true as const };
  const { agents } = await connectAgents();
  await agents.resolveToolCall(agentId, { toolCallId, ...how, by, door: 'cli' });
  show(`Resolved ${toolCallId}: ${done !== undefined ? 'done' : failed !== undefined ? 'failed' : 'it runs again'}.`);
}

export async function exportCmd(agentId: string, v: Values) {
  const { agents } = await connectAgents();
  const exported = await agents.export(agentId);
  const out = str(v, 'out');
  if (out) {
    // Written as it is read: archived entries come segment by segment, never the whole agent at once.
    await pipeline(Readable.from(exported.text), createWriteStream(out));
    show(`Exported agent "${agentId}" (${exported.entries} entries) to ${out}.`);
  } else {
    for await (const piece of exported.text) if (!process.stdout.write(terminalSafe(piece))) await once(process.stdout, 'drain');
  }
  console.error(workspaceNote(agentId));
}

/** Export carries the agent (history, notebook, tasks, configuration), not the files its tools wrote on the worker. */
function workspaceNote(agentId: string, newId?: string): string {
  const folder = (id: string) => `.livecontext/workspaces/${safeFolderName(id)}/`;
  const to = newId ? `${folder(newId)} beside the worker that runs "${newId}"` : "the new agent's workspace folder";
  return `Workspace files are not in an export: copy ${folder(agentId)} (beside the worker that ran "${agentId}", or under its --workspace) to ${to} by hand.`;
}

export async function importCmd(file: string, v: Values) {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  let snapshot: AgentSnapshot;
  try {
    snapshot = readSnapshot(raw); // the schema and every invariant the agent relies on
  } catch (err) {
    throw new UserError(`${file}: ${(err as Error).message}`);
  }
  const agentId = need(str(v, 'id') ?? snapshot.sourceAgentId, '--id NEW-ID');
  const { agents } = await connectAgents();
  try {
    await agents.restore(agentId, snapshot);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) throw new UserError(`Agent "${agentId}" already exists.`);
    if (err instanceof InputRejectedError && err.code === 'BAD_AGENT_ID') throw new UserError(err.message);
    throw err;
  }
  show(`Imported as agent "${agentId}".`);
  if (snapshot.sourceAgentId) console.error(workspaceNote(snapshot.sourceAgentId, agentId));
}

export async function simpleCmd(agentId: string, action: 'stop' | 'reset') {
  const { agents } = await connectAgents();
  await agents.handle(agentId).describe(); // an unknown id fails here (no worker needed)
  await expectRunning(agentId, agents);
  if (action === 'stop') await agents.stop(agentId);
  else await agents.reset(agentId);
  show(`${action === 'stop' ? 'Asked agent to stop' : 'Reset agent'} "${agentId}".`);
}

export async function interruptCmd(agentId: string) {
  const { agents } = await connectAgents();
  await expectRunning(agentId, agents);
  const { interrupted } = await agents.interrupt(agentId, process.env.USER ? `${process.env.USER} (cli)` : 'cli');
  show(interrupted ? `Interrupted the turn of agent "${agentId}"; it waits for input.` : `Nothing to interrupt (agent "${agentId}" waits for input).`);
}

/** Retries only a model call the agent is blocked on (a retry asked for at any other time does nothing useful). */
export async function retryCmd(agentId: string) {
  const { agents } = await connectAgents();
  await expectRunning(agentId, agents);
  const error = await agents.retryIfBlocked(agentId);
  show(
    error ? `Retrying the model call after error ${error.code}: ${clip(error.message)}` : `Nothing to retry (agent "${agentId}" is not blocked by an error).`,
  );
}

export { checkModel };

/** `--tools a,b` as a list (undefined when not given). */
function toolList(v: Values): string[] | undefined {
  return str(v, 'tools')
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/** What fork and compare say about a refusal: the reason, in one line. */
function forkRefusal(err: unknown, agentId: string): never {
  if (err instanceof WorkflowNotFoundError) throw new UserError(`No agent "${agentId}" in this namespace.`);
  if (err instanceof WorkflowExecutionAlreadyStartedError) throw new UserError(err.message);
  if (err instanceof InputRejectedError) throw new UserError(err.message);
  throw err;
}

export async function forkCmd(agentId: string, v: Values) {
  const at = wholeNumber(str(v, 'at'), '--at', 1);
  const as = str(v, 'as');
  if (at === undefined || !as) throw new UserError("fork needs --at SEQ (a turn's end or an input) and --as NEW-ID.");
  const model = str(v, 'model');
  const system = str(v, 'system');
  const tools = toolList(v);
  const { agents } = await connectAgents();
  const result = await agents
    .fork(agentId, {
      at,
      as,
      ...(model ? { model: checkModel(model) } : {}),
      ...(system !== undefined ? { systemInstruction: system } : {}),
      ...(tools ? { tools } : {}),
    })
    .catch((err) => forkRefusal(err, agentId));
  print(!!v.json, result, () =>
    [
      `Forked "${agentId}" at #${at} as "${as}": ${result.point === 'model_input' ? `it runs the turn of input #${at} again` : 'it waits for input'}.`,
      `${result.sharedSegments} archive segment${result.sharedSegments === 1 ? '' : 's'} shared, ${result.carriedEntries} entr${result.carriedEntries === 1 ? 'y' : 'ies'} carried.`,
    ].join('\n'),
  );
  console.error(
    `A fork starts with an empty workspace: copy .livecontext/workspaces/${safeFolderName(agentId)}/ to .livecontext/workspaces/${safeFolderName(as)}/ by hand if it needs the files (they are not versioned: that is how they are now, not at #${at}).`,
  );
}

export async function compareCmd(agentId: string, v: Values) {
  const at = wholeNumber(str(v, 'at'), '--at', 1);
  const models = (str(v, 'models') ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .map(checkModel);
  if (at === undefined || !models.length) throw new UserError('compare needs --at SEQ (an input) and --models a,b[,c].');
  const system = str(v, 'system');
  const tools = toolList(v);
  const { agents } = await connectAgents();
  say(`forking "${agentId}" at #${at} for ${models.length} model${models.length === 1 ? '' : 's'} and running the turn…`);
  const results = await agents
    .compare(agentId, {
      at,
      models,
      ...(str(v, 'prefix') ? { prefix: str(v, 'prefix') } : {}),
      ...(system !== undefined ? { systemInstruction: system } : {}),
      ...(tools ? { tools } : {}),
    })
    .catch((err) => forkRefusal(err, agentId));
  print(!!v.json, results, () => sideBySide(results, process.stdout.columns || 120));
}

/** `--model-calls activity|local` (AgentConfig.modelCalls), checked before anything is sent. */
function modelCallsOption(v: Values): 'activity' | 'local' | undefined {
  const given = str(v, 'model-calls');
  if (given === undefined) return undefined;
  if (given !== 'activity' && given !== 'local') throw new UserError(`--model-calls must be activity or local, not "${given}".`);
  return given;
}
