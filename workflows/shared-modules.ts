/**
 * The agent core and zod, evaluated once per workflow thread and shared by every workflow on it rather
 * than once per workflow: workflow bundles list this module in `preloadModules` (SHARED_MODULES_PATH,
 * worker/create-worker.ts). Each agent workflow used to evaluate the whole core for itself — the ~640
 * zod schemas its modules build at load and zod's own classes — which cost every cached workflow about
 * 1.5 MiB of heap and every new or replayed workflow ~14 ms (`npm run bench -- scale`). Bundles built
 * without it behave as before: this module is not imported by workflow code.
 *
 * What sharing requires: no per-workflow state in these modules. The agent core keeps its state in
 * `Agent` instances; at module level it has constants, schemas and pure caches (a WeakMap of token
 * counts). Temporal deep-freezes what preloaded modules export, to catch state that leaks between
 * workflows; zod schemas cannot be frozen (they memoize on themselves and on their internals the first
 * time they are used), nor can the RegExps zod resets (`lastIndex = 0`) or its lazily computed
 * `util.allowsEval`. So the exports are frozen here first, the same way except for those, and Temporal
 * stops at what is already frozen.
 */
import { regexes, util } from 'zod/v4/core';
import { setDebugLogs } from './debug-logs';
import * as agentConfig from '../agent/agent-config';
import * as agentId from '../agent/agent-id';
import * as agentState from '../agent/agent-state';
import * as agentStatus from '../agent/agent-status';
import * as agent from '../agent/agent';
import * as answerDelivery from '../agent/answer-delivery';
import * as archive from '../agent/archive';
import * as askUser from '../agent/ask-user';
import * as attachments from '../agent/attachments';
import * as budgets from '../agent/budgets';
import * as compaction from '../agent/compaction';
import * as contextBudget from '../agent/context-budget';
import * as effectLedger from '../agent/effect-ledger';
import * as elicitations from '../agent/elicitations';
import * as entries from '../agent/entries';
import * as entryRepair from '../agent/entry-repair';
import * as errors from '../agent/errors';
import * as fork from '../agent/fork';
import * as imageHeader from '../agent/image-header';
import * as index from '../agent/index';
import * as inputFingerprint from '../agent/input-fingerprint';
import * as input from '../agent/input';
import * as lenientArgs from '../agent/lenient-args';
import * as liveContext from '../agent/live-context';
import * as messageAssembler from '../agent/message-assembler';
import * as messageDelta from '../agent/message-delta';
import * as modelContext from '../agent/model-context';
import * as modelName from '../agent/model-name';
import * as modelStep from '../agent/model-step';
import * as model from '../agent/model';
import * as plainJson from '../agent/plain-json';
import * as refusedAttachments from '../agent/refused-attachments';
import * as requestFingerprint from '../agent/request-fingerprint';
import * as responseSchema from '../agent/response-schema';
import * as rewind from '../agent/rewind';
import * as runState from '../agent/run-state';
import * as shortId from '../agent/short-id';
import * as snapshotCheck from '../agent/snapshot-check';
import * as snapshot from '../agent/snapshot';
import * as stepIo from '../agent/step-io';
import * as subAgents from '../agent/sub-agents';
import * as timeTravel from '../agent/time-travel';
import * as timerTools from '../agent/timer-tools';
import * as tokenEstimate from '../agent/token-estimate';
import * as toolAllowance from '../agent/tool-allowance';
import * as toolDecision from '../agent/tool-decision';
import * as toolRules from '../agent/tool-rules';
import * as a2aPush from '../agent/a2a-push';
import * as toolKindsActivityTool from '../agent/tool-kinds/activity-tool';
import * as toolKindsAskUser from '../agent/tool-kinds/ask-user';
import * as toolKindsIndex from '../agent/tool-kinds/index';
import * as toolKindsRegistry from '../agent/tool-kinds/registry';
import * as toolKindsSubAgent from '../agent/tool-kinds/sub-agent';
import * as toolKindsTimers from '../agent/tool-kinds/timers';
import * as toolKindsToolKind from '../agent/tool-kinds/tool-kind';
import * as toolKindsWidgetTools from '../agent/tool-kinds/widget-tools';
import * as toolSpec from '../agent/tool-spec';
import * as toolStep from '../agent/tool-step';
import * as waits from '../agent/waits';
import * as undecodable from '../agent/undecodable';
import * as widgetsIndex from '../agent/widgets/index';
import * as widgetsMemoryNotebook from '../agent/widgets/memory-notebook';
import * as widgetsRebuild from '../agent/widgets/rebuild';
import * as widgetsRegistry from '../agent/widgets/registry';
import * as widgetsTaskList from '../agent/widgets/task-list';
import * as widgetsWidget from '../agent/widgets/widget';

const isZodSchema = (value: object): boolean => '_zod' in value;

/** Object.freeze all the way down, as Temporal does, except zod schemas and RegExps (left as they are). */
function freezeShared(value: unknown, seen: WeakSet<object>): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return;
  seen.add(value);
  if (typeof value === 'function') {
    Object.freeze(value); // like Temporal: the function itself, not what hangs off it (a class's prototype)
    return;
  }
  if (value instanceof RegExp || isZodSchema(value) || Object.isFrozen(value)) return;
  for (const key of Reflect.ownKeys(value)) {
    let child: unknown;
    try {
      child = (value as Record<PropertyKey, unknown>)[key];
    } catch {
      continue;
    }
    freezeShared(child, seen);
  }
  try {
    Object.freeze(value);
  } catch {
    // e.g. a typed array with elements cannot be frozen; Temporal skips those too
  }
}

// Temporal's worker records a stack trace for every promise workflow code creates (for the `__stack_trace`
// query the Temporal UI shows), each frame mapped through the bundle's source map: about a sixth of a
// turn's workflow-thread time (`npm run bench -- throughput`). An agent blocks in one place and its `status`
// query says why, so on the threads that share this module workflow-side stack traces are off: errors
// thrown in workflow code keep their message but not their frames. workflows/stack-traces-on.ts
// (LIVECONTEXT_WORKFLOW_STACK_TRACES=1) turns them back on. This changes no workflow behaviour.
(Error as ErrorConstructor & { stackTraceLimit: number }).stackTraceLimit = 0;

// The category debug lines (LIVECONTEXT_DEBUG) are sink calls the worker's logger drops unless their
// category is on: not sent on these threads unless workflows/debug-logs-on.ts is preloaded too.
setDebugLogs(false);

// zod's module of regexes and its util module (allowsEval memoizes on itself) stay mutable: frozen shallowly
// here, so Temporal's deep freeze passes them by. zod's other modules export classes and functions.
Object.freeze(regexes);
Object.freeze(util);
const seen = new WeakSet<object>();
for (const namespace of [
  agentConfig,
  agentId,
  agentState,
  agentStatus,
  agent,
  answerDelivery,
  archive,
  askUser,
  attachments,
  budgets,
  compaction,
  contextBudget,
  effectLedger,
  elicitations,
  entries,
  entryRepair,
  errors,
  fork,
  imageHeader,
  index,
  inputFingerprint,
  input,
  lenientArgs,
  liveContext,
  messageAssembler,
  messageDelta,
  modelContext,
  modelName,
  modelStep,
  model,
  plainJson,
  refusedAttachments,
  requestFingerprint,
  responseSchema,
  rewind,
  runState,
  shortId,
  snapshotCheck,
  snapshot,
  stepIo,
  subAgents,
  timeTravel,
  timerTools,
  tokenEstimate,
  toolAllowance,
  toolDecision,
  toolRules,
  a2aPush,
  toolKindsActivityTool,
  toolKindsAskUser,
  toolKindsIndex,
  toolKindsRegistry,
  toolKindsSubAgent,
  toolKindsTimers,
  toolKindsToolKind,
  toolKindsWidgetTools,
  toolSpec,
  toolStep,
  undecodable,
  waits,
  widgetsIndex,
  widgetsMemoryNotebook,
  widgetsRebuild,
  widgetsRegistry,
  widgetsTaskList,
  widgetsWidget,
])
  freezeShared(namespace, seen);
