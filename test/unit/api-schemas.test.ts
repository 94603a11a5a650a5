/**
 * The response schemas the gateway declares, without a server (the routes are only registered, never
 * called): each zod schema a route answers with parses — a discriminated union that lists a value twice
 * throws at its first parse —, each response schema of /openapi.json builds a validator and no union
 * there lists an alternative twice (nor a discriminator value: then `oneOf` refuses a value that matches both), and every way a
 * turn can end passes both the zod schema and the document's. test/gateway/openapi.test.ts checks the
 * served document against real responses.
 */
import { z } from 'zod';
import { AgentRunState, type TurnOutcome } from '../../agent/index';
import type { AgentClient } from '../../client/agent-client';
import { TurnOutcomeSchema } from '../../gateway/api-schemas';
import { openApiDocument } from '../../gateway/openapi';
import { agentsApi } from '../../gateway/routes/agents-routes';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is read as plain JSON */
const api = agentsApi({} as AgentClient);
const doc: any = openApiDocument(api);

/** A zod validator built from the document's JSON schema for one response (its references as $defs). */
function responseValidator(method: string, path: string, status: number) {
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)];
  if (!response) throw new Error(`The document has no ${status} response for ${method} ${path}.`);
  const local = (x: unknown) => JSON.parse(JSON.stringify(x).replaceAll('#/components/schemas/', '#/$defs/'));
  return z.fromJSONSchema({ ...local(response.content['application/json'].schema), $defs: local(doc.components.schemas) });
}

/** Every way a turn can end, one value each. */
const OUTCOMES: Record<TurnOutcome['status'], TurnOutcome[]> = {
  answered: [
    {
      inputSeq: 1,
      status: 'answered',
      inputEntrySeq: 2,
      answer: {
        seq: 3,
        timestamp: 't',
        kind: 'model_output',
        contents: ['Hi.'],
        toolCalls: [],
        invocation: { providerId: 'p', specification: 's', model: 'm' },
      },
    },
  ],
  ignored: [{ inputSeq: 1, status: 'ignored', reason: 'blank input is dropped' }],
  error: [{ inputSeq: 1, status: 'error', error: { code: 'MODEL_ERROR', message: 'm', runState: AgentRunState.PendingInput, at: 't' } }],
  stopped: [{ inputSeq: 1, status: 'stopped' }],
  reset: [{ inputSeq: 1, status: 'reset' }],
  interrupted: [
    { inputSeq: 1, status: 'interrupted', by: 'ops' },
    { inputSeq: 1, status: 'interrupted' },
  ],
  asked: [{ inputSeq: 2, status: 'asked', question: 'Which one?' }],
  continued: [{ inputSeq: 3, status: 'continued' }],
  archived: [{ inputSeq: 1, status: 'archived' }],
};

test('every response schema a route declares parses instead of throwing', () => {
  const routes = api.openAPIRegistry.definitions.filter((d: any) => d.type === 'route') as any[];
  const threw: string[] = [];
  let parsed = 0;
  for (const { route } of routes) {
    for (const [status, response] of Object.entries(route.responses ?? {}) as Array<[string, any]>) {
      const schema = response.content?.['application/json']?.schema;
      if (!schema?.safeParse) continue;
      try {
        schema.safeParse({});
      } catch (e) {
        threw.push(`${route.method} ${route.path} ${status}: ${String(e)}`);
      }
      parsed++;
    }
  }
  expect(threw).toEqual([]);
  expect(parsed).toBeGreaterThan(50);
});

test('each response schema of the document builds a validator, and no union lists an alternative twice', () => {
  let built = 0;
  for (const [p, item] of Object.entries(doc.paths) as Array<[string, any]>) {
    for (const [method, op] of Object.entries(item) as Array<[string, any]>) {
      for (const status of Object.keys(op.responses)) {
        if (!op.responses[status].content?.['application/json']) continue;
        expect(() => responseValidator(method, p, Number(status)).safeParse(null)).not.toThrow();
        built++;
      }
    }
  }
  expect(built).toBeGreaterThan(50);
  const unions = (node: any): any[][] =>
    !node || typeof node !== 'object'
      ? []
      : [...(Array.isArray(node.oneOf) ? [node.oneOf] : []), ...(Array.isArray(node.anyOf) ? [node.anyOf] : []), ...Object.values(node).flatMap(unions)];
  const repeated = unions(doc).flatMap((alternatives) => {
    const texts = alternatives.map((a) => JSON.stringify(a));
    const twice = texts.filter((x, i) => texts.indexOf(x) !== i);
    // A discriminator (a property every alternative fixes to constants) names each value once.
    const fixed = (a: any, key: string): unknown[] | undefined => {
      const p = a?.properties?.[key];
      return p?.const !== undefined ? [p.const] : Array.isArray(p?.enum) ? p.enum : undefined;
    };
    const keys = Object.keys(alternatives[0]?.properties ?? {}).filter((key) => alternatives.every((a) => fixed(a, key)));
    for (const key of keys) {
      const values = alternatives.flatMap((a) => fixed(a, key)!.map((v) => `${key}=${String(v)}`));
      twice.push(...values.filter((v, i) => values.indexOf(v) !== i));
    }
    return twice;
  });
  expect(repeated).toEqual([]);
});

test('every way a turn can end validates, in zod and as the document gives it', () => {
  const inDocument = responseValidator('GET', '/agents/{id}/answers/{inputSeq}', 200);
  const zod = (o: unknown) => {
    try {
      return TurnOutcomeSchema.safeParse(o).success;
    } catch (e) {
      return String(e);
    }
  };
  for (const o of Object.values(OUTCOMES).flat()) {
    expect({ o, zod: zod(o), document: inDocument.safeParse(o).success }).toEqual({ o, zod: true, document: true });
  }
  expect(TurnOutcomeSchema.safeParse({ inputSeq: 1, status: 'asked' }).success).toBe(false); // a question is required
});
