/**
 * A2A push notifications of an agent's tasks (a task is one turn, `turn-<inputSeq>@<agentId>`): a caller's
 * webhook per task, held in the agent's config (so carried across continue-as-new, export and fork) and
 * set or removed by the `setA2aPush` update, each change an `a2a_push` entry. When a configured task's
 * state changes (working → input-required → completed/failed/canceled) the workflow has an activity POST
 * it to the webhook, one delivery at a time per config, each with its own delivery id. The caller's
 * credentials (A2A's token, an Authorization value) never enter history in clear: the gateway seals them
 * with a key from its environment, and only the delivery activity unseals them.
 *
 * @example
 * parseA2aPushChange({ op: 'set', config: { id: 'hook', inputSeq: 3, url: 'https://example.com/a2a' } });
 * pushPhase(agent, 3); // → 'working' while turn 3 runs
 */
import { z } from 'zod';
import { InputRejectedError } from './errors';
import type { TurnOutcome } from './agent';

/** At most this many configs per agent: they are carried in every run and snapshot. */
export const MAX_A2A_PUSH_CONFIGS = 32;

export const A2aPushConfig = z
  .object({
    /** The caller's name for the config (unique per task). */
    id: z.string().min(1).max(200),
    /** The task's turn: the input it started with. */
    inputSeq: z.number().int().positive(),
    /** The webhook: http(s) only. */
    url: z
      .string()
      .max(2000)
      .refine((u) => /^https?:\/\/[^\s/?#]+/i.test(u), 'an http(s) URL'),
    /** The caller's token and authentication, sealed by the gateway (common/push-seal.ts); never in clear. */
    sealed: z.string().max(4000).optional(),
    /** The task state last notified, and how many deliveries this config has had (its delivery ids count them). */
    notified: z.string().max(40).optional(),
    deliveries: z.number().int().nonnegative().optional(),
  })
  .strict();
export type A2aPushConfig = z.infer<typeof A2aPushConfig>;

export const A2aPushChange = z.union([
  z.object({ op: z.literal('set'), config: A2aPushConfig.omit({ notified: true, deliveries: true }), by: z.string().max(200).optional() }).strict(),
  z.object({ op: z.literal('delete'), inputSeq: z.number().int().positive(), id: z.string().min(1).max(200), by: z.string().max(200).optional() }).strict(),
]);
export type A2aPushChange = z.infer<typeof A2aPushChange>;

/** Validates a change; throws InputRejectedError('BAD_A2A_PUSH') saying what is wrong. */
export function parseA2aPushChange(raw: unknown): A2aPushChange {
  const parsed = A2aPushChange.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'change'}: ${i.message}`).join('; ');
    throw new InputRejectedError('BAD_A2A_PUSH', `A push notification config is {"id", "inputSeq", "url": "http(s)://…", "sealed"?} (${why}).`);
  }
  return parsed.data;
}

/** A task's state as push notifications name it (A2A 1.0's TaskState names). */
export type PushPhase =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_REJECTED';

const FINAL: ReadonlySet<PushPhase> = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);
export const isFinalPhase = (p: PushPhase) => FINAL.has(p);

/** The state of turn `inputSeq`'s task, as gateway/a2a/task-view.ts reads it from the agent's state. */
export function pushPhase(
  agent: { consumedInputSeq: number; turnOutcome(inputSeq: number): TurnOutcome | undefined; awaitsApproval: boolean },
  inputSeq: number,
): PushPhase {
  if (inputSeq > agent.consumedInputSeq) return 'TASK_STATE_SUBMITTED';
  const outcome = agent.turnOutcome(inputSeq);
  switch (outcome?.status) {
    case undefined:
    case 'continued':
      return agent.awaitsApproval ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_WORKING';
    case 'answered':
    case 'archived':
      return 'TASK_STATE_COMPLETED';
    case 'asked':
      return 'TASK_STATE_INPUT_REQUIRED';
    case 'error':
      return 'TASK_STATE_FAILED';
    case 'ignored':
      return 'TASK_STATE_REJECTED';
    default:
      return 'TASK_STATE_CANCELED';
  }
}

/** One notification to deliver: plain data, the delivery activity's input. */
export interface A2aPushDelivery {
  agentId: string;
  inputSeq: number;
  configId: string;
  url: string;
  sealed?: string;
  /** Unique per notification: the receiver dedupes retried deliveries by it. */
  deliveryId: string;
  state: PushPhase;
  /** The status message: the question or the approval asked for, or the error. */
  message?: string;
  /** When the state changed (the workflow's clock). */
  timestamp: string;
}

/** Checks a change against the agent's configs; throws InputRejectedError('BAD_A2A_PUSH'). */
export function checkA2aPushChange(raw: unknown, configs: readonly A2aPushConfig[] | undefined, nextInputSeq: number): A2aPushChange {
  const change = parseA2aPushChange(raw);
  const list = configs ?? [];
  const key = change.op === 'set' ? change.config : change;
  const exists = list.some((c) => c.inputSeq === key.inputSeq && c.id === key.id);
  if (key.inputSeq >= nextInputSeq)
    throw new InputRejectedError('BAD_A2A_PUSH', `There is no turn ${key.inputSeq}: the agent has taken ${nextInputSeq - 1} inputs.`);
  if (change.op === 'delete' && !exists) throw new InputRejectedError('BAD_A2A_PUSH', `No push notification config ${key.id} for turn ${key.inputSeq}.`);
  if (change.op === 'set' && !exists && list.length >= MAX_A2A_PUSH_CONFIGS)
    throw new InputRejectedError('BAD_A2A_PUSH', `At most ${MAX_A2A_PUSH_CONFIGS} push notification configs at a time (a config goes when its task is over).`);
  return change;
}

/** The configs after a checked change, and the entry that records it (the URL, never the sealed credentials). */
export function applyA2aPushChange(configs: readonly A2aPushConfig[] | undefined, change: A2aPushChange) {
  const key = change.op === 'set' ? change.config : change;
  const others = (configs ?? []).filter((c) => !(c.inputSeq === key.inputSeq && c.id === key.id));
  const by = change.by !== undefined ? { by: change.by } : {};
  if (change.op === 'delete') return { configs: others, entry: { change: 'delete' as const, configId: key.id, inputSeq: key.inputSeq, ...by } };
  return {
    configs: [...others, change.config],
    entry: { change: 'set' as const, configId: key.id, inputSeq: key.inputSeq, url: change.config.url, ...by },
  };
}

/** What the agent tells about a turn for its notifications. */
export interface PushHost {
  consumedInputSeq: number;
  turnOutcome(inputSeq: number): TurnOutcome | undefined;
  awaitsApproval: boolean;
  /** The calls waiting for approval, in words. */
  approvalText(): string;
}

/**
 * The notifications due now: one per config whose task changed state since its last one (a first one is
 * `working`, when the task had worked before its config came). The configs with their progress recorded;
 * a config whose task is over is dropped once its last notification is due.
 */
export function duePushes(
  configs: readonly A2aPushConfig[] | undefined,
  agentId: string,
  host: PushHost,
  timestamp: string,
): { configs: A2aPushConfig[]; due: A2aPushDelivery[] } {
  const due: A2aPushDelivery[] = [];
  const kept: A2aPushConfig[] = [];
  for (const c of configs ?? []) {
    const phase = pushPhase(host, c.inputSeq);
    let n = c.deliveries ?? 0;
    const states: PushPhase[] = [];
    if (phase !== 'TASK_STATE_SUBMITTED' && phase !== c.notified) {
      if (c.notified === undefined && phase !== 'TASK_STATE_WORKING' && phase !== 'TASK_STATE_REJECTED') states.push('TASK_STATE_WORKING');
      states.push(phase);
    }
    for (const state of states) {
      n++;
      due.push({
        agentId,
        inputSeq: c.inputSeq,
        configId: c.id,
        url: c.url,
        ...(c.sealed !== undefined ? { sealed: c.sealed } : {}),
        deliveryId: `turn-${c.inputSeq}@${agentId}/${c.id}/${n}`,
        state,
        ...messageOf(host, c.inputSeq, state),
        timestamp,
      });
    }
    if (!isFinalPhase(phase)) kept.push(states.length ? { ...c, notified: phase, deliveries: n } : c);
  }
  return { configs: kept, due };
}

function messageOf(host: PushHost, inputSeq: number, state: PushPhase): { message?: string } {
  const outcome = host.turnOutcome(inputSeq);
  if (state === 'TASK_STATE_INPUT_REQUIRED') return { message: outcome?.status === 'asked' ? outcome.question : host.approvalText() };
  if (state === 'TASK_STATE_FAILED' && outcome?.status === 'error') return { message: `${outcome.error.code}: ${outcome.error.message}` };
  return {};
}
