/** The gateway itself: health, JSON errors for unknown routes, auth with full and read-only tokens, loopback rule. */
import { request } from 'node:http';
import { serveGateway } from '../../gateway/serve-gateway';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectTest, type TestContext, uniqueId } from '../support/temporal';

let t: TestContext;
let open: TestGateway;
let guarded: TestGateway;
beforeAll(async () => {
  t = await connectTest(uniqueId('gw-basics'));
  open = await startTestGateway(t.agents);
  guarded = await startTestGateway(t.agents, { fullToken: 'full-secret', readToken: 'read-secret' });
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await t?.close();
});

test('health and a JSON 404 for an unknown route', async () => {
  expect(await open.request('GET', '/healthz')).toMatchObject({ status: 200, body: { ok: true } });
  expect(await open.request('GET', '/no/such/route')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
});

test('a token is required when configured; a wrong one is refused; a read-only one cannot change agents', async () => {
  expect(await guarded.request('GET', '/healthz')).toMatchObject({ status: 200 });
  const none = await guarded.request('GET', '/agents');
  expect(none).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHORIZED' } } });
  expect(none.headers.get('www-authenticate')).toBe('Bearer');
  expect(await guarded.request('GET', '/agents', undefined, { token: 'wrong' })).toMatchObject({ status: 401 });
  expect(await guarded.request('POST', '/agents/x/input', { text: 'hi' }, { token: 'read-secret' })).toMatchObject({
    status: 403,
    body: { error: { code: 'READ_ONLY_TOKEN' } },
  });
});

test('refuses to listen beyond loopback without a token', async () => {
  await expect(serveGateway({ agents: t.agents, tokens: [], host: '0.0.0.0', port: 0 })).rejects.toThrow(/without a token/);
});

test('a body over the limit gets 413 with a JSON error', async () => {
  const big = JSON.stringify({ text: 'x'.repeat(1_100_000) });
  expect(await open.request('POST', '/agents/x/input', big)).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
});

test('the API description and health need no token; agent data does', async () => {
  const doc = await guarded.request('GET', '/openapi.json');
  expect(doc).toMatchObject({ status: 200, body: { openapi: '3.1.0' } });
  expect(JSON.stringify(doc.body)).not.toMatch(/full-secret|read-secret/);
  for (const path of ['/agents', '/agents/x', '/agents/x/history', '/agents/x/export']) {
    expect({ path, ...(await guarded.request('GET', path)) }).toMatchObject({ status: 401 });
  }
});

test('CORS: a configured origin may send the token and an Idempotency-Key; another origin is not let in', async () => {
  const cors = await startTestGateway(t.agents, { fullToken: 'full-secret', corsOrigins: ['https://app.example'] });
  try {
    const preflight = await fetch(`${cors.url}/agents/x/input`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(expect.stringContaining('idempotency-key'));
    const other = await fetch(`${cors.url}/agents`, { headers: { Origin: 'https://evil.example', Authorization: 'Bearer full-secret' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    await cors.close();
  }
});

/** A GET with a Host header of our choosing (fetch does not let one be set). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any JSON
function getWithHost(gw: TestGateway, path: string, host: string): Promise<{ status: number; body: any }> {
  const url = new URL(gw.url + path);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('an open gateway answers only requests that name a loopback host (no DNS rebinding)', async () => {
  expect(await getWithHost(open, '/agents', 'evil.example:8787')).toMatchObject({ status: 403, body: { error: { code: 'NOT_LOOPBACK' } } });
  expect(await getWithHost(open, '/healthz', 'localhost:8787')).toMatchObject({ status: 200 });
  // With tokens, any name is fine (the token is the guard).
  expect(await getWithHost(guarded, '/healthz', 'agents.example.com')).toMatchObject({ status: 200 });
});
