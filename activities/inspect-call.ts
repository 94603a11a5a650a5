/**
 * `livecontext inspect AGENT --call SEQ`, on the worker: the model call that produced model_output #SEQ
 * rendered again from history with the functions the call used (prepare-context's rendering, the tool
 * registry, the model adapter's `request`), fingerprinted, and checked against the fingerprint the call
 * recorded. It runs here and not in the client because the request depends on what only a worker has —
 * its tools' schemas and its providers' wire settings — so a tool gone from the worker shows as such.
 * Entries come from the agent (the entry cache) and, for archived ones, the archive; nothing is sent
 * to any provider.
 */
import type { Client } from '@temporalio/client';
import {
  type AgentStatus,
  type ArchiveIndex,
  type HistoryEntry,
  type ModelOutputEntry,
  type ModelRequest,
  type RequestFingerprint,
  SubAgentArgs,
  fingerprintDifferences,
  fingerprintOf,
  visibleEntries,
  subAgentTools,
  turnResponseSchema,
  wireResponseFormat,
  zodToolSpec,
} from '../agent/index';
import type { ArchiveStore, SegmentBefore } from '../common/archive/index';
import { archiveQuery, stateQuery } from '../workflows/messages';
import type { EntryCache } from './entry-cache';
import { inputBudgetFor } from './models/context-window';
import type { ModelRouter } from './models/model-router';
import { offersArchiveTools } from './model-call/archive-offer';
import { renderCounted } from './model-call/prepare-context';
import { bodyText, requestFingerprint, sha256 } from './model-call/request-fingerprint';
import { wireOptions } from './model-call/stream-message';
import type { ToolRegistry } from './tools/registry';
import type { CallModelInput } from './types';

export interface InspectCallInput {
  agentId: string;
  /** The seq of the call's model_output entry. */
  seq: number;
}

export interface InspectedCall {
  agentId: string;
  seq: number;
  /** The fingerprint the call recorded; absent for calls recorded before fingerprints existed. */
  recorded?: RequestFingerprint;
  /** The fingerprint of the request rendered now. */
  rendered?: RequestFingerprint;
  /** The request rendered now (the body as the SDK sends it); absent when it could not be rendered. */
  request?: ModelRequest;
  /** SHA-256 of `request`'s body text. */
  sha256?: string;
  /** True when the rendering has the recorded hash: this is exactly what was sent. */
  reproduced: boolean;
  /** Why it may not be exactly what was sent, in words. */
  warnings: string[];
}

export interface InspectCallDeps {
  models: ModelRouter;
  tools: ToolRegistry;
  entries: EntryCache;
  archive: ArchiveStore;
}

/** Refused at once: the entry is not a model call's output (or not there). */
export class NotAModelCall extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export async function inspectCall(deps: InspectCallDeps, client: Client, request: InspectCallInput): Promise<InspectedCall> {
  const { agentId, seq } = request;
  const handle = client.workflow.getHandle(agentId);
  const { runId } = await handle.describe();
  const index = await client.workflow.getHandle(agentId, runId).query(archiveQuery);
  const [entry] = await readEntries(deps, client, { agentId, runId, index }, seq, seq);
  if (!entry || entry.seq !== seq) throw new NotAModelCall(`Agent ${agentId} has no entry #${seq}.`);
  if (entry.kind !== 'model_output')
    throw new NotAModelCall(`Entry #${seq} of agent ${agentId} is a ${entry.kind} entry; a model call is a model_output entry.`);
  const output = entry as ModelOutputEntry;
  const warnings: string[] = [];
  const recorded = fingerprintOf(output.metadata);
  if (!recorded)
    warnings.push(
      'This call recorded no fingerprint (it was made before calls recorded what they sent, or by a model without a wire request): it is rendered from history as the agent is now, and cannot be checked.',
    );
  const status = await client.workflow.getHandle(agentId, runId).query(stateQuery);
  const input = callInput(agentId, runId, output, recorded, status);
  if (recorded?.refused) warnings.push(`${recorded.refused} refused attachment(s) were left out of the call; the rendering includes them.`);

  const from = recorded?.known_from ?? 1;
  // What a rewind took out was not sent, as in prepareContext.
  const known = visibleEntries(await readEntries(deps, client, { agentId, runId, index }, from, input.uptoSeq), input.uptoSeq);
  const base = await baseBefore(deps.archive, index, from);
  if (base === null) warnings.push(`The state before entry #${from} is not in the archive: the system prompt and widgets may differ.`);
  const context = await renderCounted(known, input, base ?? undefined);
  const archiveTools = recorded ? recorded.archive_tools === true : offersArchiveTools(input, known);
  const toolSpecs = [
    ...deps.tools.specsFor(input.tools, { archived: archiveTools }),
    ...(input.subAgentTools ?? []).map((t) => zodToolSpec(t.name, t.description, SubAgentArgs)),
  ];
  const missing = (input.tools ?? []).filter((n) => !n.endsWith('*') && !toolSpecs.some((s) => s.name === n));
  if (missing.length) warnings.push(`Tool(s) the agent allows are not on this worker: ${missing.join(', ')}.`);

  let rendered: ModelRequest | undefined;
  try {
    const model = deps.models.resolve(input.model);
    if (input.params) model.updateConfig(input.params);
    const schema = turnResponseSchema(known);
    rendered = model.request?.(context.messages, toolSpecs, context.system, wireOptions(input, schema && wireResponseFormat(schema)));
    if (!rendered) warnings.push(`${input.model} has no wire request (a scripted or demo model): only the context is fingerprinted.`);
  } catch (err) {
    warnings.push(`${input.model} cannot be rendered on this worker: ${(err as Error).message}`);
  }
  const fingerprint = requestFingerprint({
    input,
    context,
    known,
    segments: recorded?.segments ?? 0,
    budget: inputBudgetFor(input.model, input.contextWindow),
    archiveTools,
    tools: toolSpecs.length,
    request: rendered,
  });
  const reproduced = recorded?.sha256 !== undefined && recorded.sha256 === fingerprint.sha256;
  if (recorded && !reproduced && rendered) {
    warnings.push(`The request rendered now does not match the one recorded: ${fingerprintDifferences(recorded, fingerprint).join('; ')}.`);
  }
  return {
    agentId,
    seq,
    ...(recorded ? { recorded } : {}),
    rendered: fingerprint,
    ...(rendered ? { request: rendered, sha256: sha256(bodyText(rendered)) } : {}),
    reproduced,
    warnings,
  };
}

/**
 * The call's input as the agent made it: what the fingerprint recorded (bound, model, window, params when
 * small, policy, cache TTL), the rest from the agent's configuration now (tool allowance, sub-agents,
 * larger params) — a changed configuration then shows as a mismatch of that part.
 */
function callInput(agentId: string, runId: string, output: ModelOutputEntry, f: RequestFingerprint | undefined, status: AgentStatus): CallModelInput {
  const config = status.config;
  const subAgents = config.subAgents && Object.keys(config.subAgents).length ? subAgentTools(config) : [];
  const params = f?.params ?? config.params;
  const model = f?.model ?? `${output.invocation.providerId}:${output.invocation.model}`;
  const window = f ? f.window : config.contextWindow;
  // A call a fork copied from its source was sent by the source: the body names the agent it came from
  // (a hash of its id). One generation back: a fork of a fork names its own source only.
  const sender = config.forkedFrom && output.seq <= config.forkedFrom.seq ? config.forkedFrom.agentId : agentId;
  return {
    agentId: sender,
    runId,
    uptoSeq: f?.upto_seq ?? output.seq - 1,
    model,
    phase: 'PendingInput',
    ...(params ? { params } : {}),
    ...(config.tools ? { tools: config.tools } : {}),
    ...(window ? { contextWindow: window } : {}),
    ...(subAgents.length ? { subAgentTools: subAgents } : {}),
    // A call under policy `compact` was not trimmed; rendered again it must not ask for a compaction either.
    ...(f?.compact ? { compactAt: 1, compactionsDone: true } : {}),
    ...(f?.cache_ttl ? { cacheTtl: f.cache_ttl as '5m' | '1h' } : {}),
  };
}

interface AgentRef {
  agentId: string;
  runId: string;
  index: ArchiveIndex | null;
}

/** Entries `from`…`upto`: archived ones from the archive's segments, the rest from the agent's working set. */
async function readEntries(deps: InspectCallDeps, client: Client, agent: AgentRef, from: number, upto: number): Promise<HistoryEntry[]> {
  const through = agent.index?.throughSeq ?? 0;
  const archived = agent.index && from <= through ? await deps.archive.entries(agent.index, { afterSeq: from - 1, uptoSeq: upto }) : [];
  const working = upto > through ? await deps.entries.range(client, agent.agentId, agent.runId, Math.max(from - 1, through), upto) : [];
  return [...archived, ...working];
}

/** The state before entry `from` when older entries are archived (undefined: none are; null: not found). */
async function baseBefore(archive: ArchiveStore, index: ArchiveIndex | null, from: number): Promise<SegmentBefore | undefined | null> {
  if (!index || from <= 1 || index.throughSeq === 0) return undefined;
  if (from - 1 > index.throughSeq) return undefined; // not archived: the working set starts with the agent
  const ref = (await archive.allSegments(index)).find((r) => r.toSeq === from - 1);
  return ref ? archive.readState(ref) : null;
}
