/**
 * Quick reads: `livecontext list` and `state` without Temporal's client. Loading the SDK (its protobuf
 * root, gRPC, the data converter) and the agent core costs a CLI start several times what Node's own
 * start costs, for one or two calls; here those calls go over Node's HTTP/2 (common/wire/) and the
 * answers are read field by field. They answer exactly what AgentClient.list / state answer, or
 * `undefined` whenever they cannot be sure to — an error, a refused query, a setting they do not handle
 * (a proxy, tracing) — and the caller then asks through AgentClient, which says what went wrong.
 */
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { splitModelName } from '../../agent/model-name';
import type { AgentStatus } from '../../workflows/messages';
import { MODEL_ATTRIBUTE_NAME, PROVIDER_ATTRIBUTE_NAME, RUN_STATE_ATTRIBUTE_NAME, STATE_QUERY, WORKFLOW_TYPE } from '../../workflows/names';
import { tracingWanted } from '../../common/telemetry';
import { GrpcCallError, GrpcChannel, type GrpcTarget } from '../../common/wire/grpc-unary';
import type { AgentSummary } from '../agent-list';
import { LISTED_RUNNING, listedRunStateWord, runStateWord } from '../run-state-words';
import {
  EXECUTION_STATUS_NAMES,
  REJECT_NOT_OPEN,
  WORKFLOW_SERVICE,
  type WirePayload,
  listRequest,
  queryRequest,
  readListResponse,
  readQueryResponse,
} from './workflow-service-wire';

/** As client/agent-list.ts: agents without the run-state attribute whose state is asked, and for how long. */
const LIST_STATE_QUERIES = 20;
const LIST_STATE_QUERY_MS = 3_000;
/** As AgentClient: the most agents a list shows. */
const LIST_LIMIT = 1000;
/** A list's call: as long as the full client waits to connect. */
const LIST_CALL_MS = 5_000;
/**
 * How long `state` waits for the agent's answer (AgentCalls' QUICK_ANSWER_MS): past it the agent's worker
 * may be gone, and the full client, which can tell, takes over.
 */
export const QUICK_STATE_MS = 800;

export interface QuickReader {
  address: string;
  namespace: string;
  channel: GrpcChannel;
}

/**
 * A reader for the server the environment names (Temporal's environment configuration, as the full
 * client reads it), or undefined where the quick path does not go: a proxy (gRPC's own client honours
 * grpc_proxy/https_proxy), tracing (every call would be a span), an address it cannot use.
 */
export function quickReader(env: NodeJS.ProcessEnv = process.env): QuickReader | undefined {
  if (tracingWanted(env)) return undefined;
  if (['grpc_proxy', 'https_proxy', 'http_proxy'].some((k) => env[k] || env[k.toUpperCase()])) return undefined;
  const loaded = loadClientConnectConfig();
  const o = loaded.connectionOptions;
  const address = o.address ?? 'localhost:7233';
  if (!/^[\w.-]+:\d+$|^\[[\da-fA-F:]+\]:\d+$/.test(address)) return undefined;
  const namespace = loaded.namespace ?? 'default';
  const metadata: Record<string, string> = { 'temporal-namespace': namespace };
  for (const [k, v] of Object.entries(o.metadata ?? {})) metadata[k.toLowerCase()] = String(v);
  if (o.apiKey) {
    if (typeof o.apiKey !== 'string' || metadata.authorization) return undefined;
    metadata.authorization = `Bearer ${o.apiKey}`;
  }
  const tls = o.tls === true ? {} : o.tls || undefined;
  const target: GrpcTarget = {
    address,
    metadata,
    ...(tls
      ? {
          tls: {
            ...(tls.serverNameOverride ? { serverName: tls.serverNameOverride } : {}),
            ...(tls.serverRootCACertificate ? { ca: Buffer.from(tls.serverRootCACertificate) } : {}),
            ...(tls.clientCertPair ? { cert: Buffer.from(tls.clientCertPair.crt), key: Buffer.from(tls.clientCertPair.key) } : {}),
          },
        }
      : {}),
  };
  return { address, namespace, channel: new GrpcChannel(target) };
}

/** As AgentClient.list (client/agent-list.ts); undefined when the server refused the call. */
export async function quickList(reader: QuickReader, options: { all?: boolean } = {}): Promise<AgentSummary[] | undefined> {
  const query = `WorkflowType = '${WORKFLOW_TYPE}'${options.all ? '' : " AND ExecutionStatus = 'Running'"}`;
  const out: AgentSummary[] = [];
  let token: Uint8Array | undefined;
  for (;;) {
    const answer = await call(reader, 'ListWorkflowExecutions', listRequest(reader.namespace, query, token), LIST_CALL_MS);
    if (!answer) return undefined;
    const page = readListResponse(answer);
    for (const e of page.executions) {
      const status = EXECUTION_STATUS_NAMES[e.status] ?? 'UNKNOWN';
      const runState = keyword(e.searchAttributes[RUN_STATE_ATTRIBUTE_NAME]);
      out.push({
        agentId: e.workflowId,
        status,
        startTime: new Date(e.startTimeMs).toISOString(),
        runState,
        model: keyword(e.searchAttributes[MODEL_ATTRIBUTE_NAME]),
        provider: keyword(e.searchAttributes[PROVIDER_ATTRIBUTE_NAME]),
        stateWord: listedRunStateWord(runState, status),
      });
      if (out.length >= LIST_LIMIT) break;
    }
    token = page.nextPageToken;
    if (out.length >= LIST_LIMIT || !token.length) break;
  }
  // Agents without the run-state attribute: asked their state briefly, as AgentClient.list does.
  const unlisted = out.filter((a) => a.stateWord === LISTED_RUNNING).slice(0, LIST_STATE_QUERIES);
  await Promise.all(
    unlisted.map(async (a) => {
      const s = await queryState(reader, a.agentId, LIST_STATE_QUERY_MS, 0).catch(() => undefined);
      if (!s) return; // no answer in time (no worker, a long replay): it stays `running`
      a.stateWord = runStateWord(s);
      a.model ??= s.config.model;
      a.provider ??= splitModelName(s.config.model).provider;
    }),
  );
  return out;
}

/**
 * As AgentClient.state for a running agent that answers within QUICK_STATE_MS; undefined otherwise (a
 * closed run, no such agent, no answer yet): the full client then answers or says why not.
 */
export async function quickState(reader: QuickReader, agentId: string): Promise<AgentStatus | undefined> {
  return queryState(reader, agentId, QUICK_STATE_MS, REJECT_NOT_OPEN).catch((err) => {
    if (unreachable(err)) throw err;
    return undefined;
  });
}

async function queryState(reader: QuickReader, agentId: string, timeoutMs: number, rejectCondition: number): Promise<AgentStatus | undefined> {
  const answer = await call(reader, 'QueryWorkflow', queryRequest(reader.namespace, agentId, STATE_QUERY, rejectCondition), timeoutMs);
  if (!answer) return undefined;
  const { payloads, rejectedStatus } = readQueryResponse(answer);
  if (rejectedStatus !== undefined || !payloads?.length) return undefined;
  return (await decodeValue(payloads[0])) as AgentStatus | undefined;
}

/**
 * One call; undefined when the server answered with an error status or not in time. A server that cannot
 * be reached at all throws what the full client would say.
 */
async function call(reader: QuickReader, method: string, request: Uint8Array, timeoutMs: number): Promise<Uint8Array | undefined> {
  try {
    return await reader.channel.call(`${WORKFLOW_SERVICE}/${method}`, request, timeoutMs);
  } catch (err) {
    if (unreachable(err)) throw err;
    return undefined;
  }
}

/** A call that got no answer at all from the server (refused, reset, no TLS handshake): not a deadline. */
export function unreachable(err: unknown): err is GrpcCallError {
  return err instanceof GrpcCallError && err.code === undefined && !err.deadlineExceeded;
}

const text = new TextDecoder();
const encodingOf = (p: WirePayload) => (p.metadata.encoding ? text.decode(p.metadata.encoding) : '');

/**
 * A payload's value as the SDK's default converter gives it, after the codecs (common/codec/) where the
 * payload is encoded by one: those are loaded only then, with the settings the full client would use.
 */
async function decodeValue(payload: WirePayload): Promise<unknown> {
  let p = payload;
  if (!['json/plain', 'binary/null'].includes(encodingOf(p))) {
    const { payloadCodecs } = await import('../../common/codec/data-converter');
    let decoded: WirePayload[] = [p];
    for (const codec of payloadCodecs().reverse()) decoded = (await codec.decode(decoded)) as WirePayload[];
    p = decoded[0];
  }
  switch (encodingOf(p)) {
    case 'binary/null':
      return undefined;
    case 'json/plain':
      return JSON.parse(text.decode(p.data));
    default:
      throw new Error(`Unknown payload encoding "${encodingOf(p)}".`);
  }
}

/** A Keyword search attribute's value, as TypedSearchAttributes.get reads it; null when absent or of another type. */
function keyword(payload: WirePayload | undefined): string | null {
  if (!payload || !payload.metadata.type || text.decode(payload.metadata.type) !== 'Keyword' || encodingOf(payload) !== 'json/plain') return null;
  let value: unknown = JSON.parse(text.decode(payload.data));
  if (Array.isArray(value)) {
    if (value.length > 1) return null;
    value = value[0];
  }
  return typeof value === 'string' ? value : null;
}
