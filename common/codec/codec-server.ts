/**
 * A codec server for the Temporal Web UI and CLI (Temporal's remote codec protocol): POST /decode and
 * /encode with `{"payloads": [{"metadata": {k: base64}, "data": base64}]}`. Point the UI at it
 * (`temporal server start-dev --ui-codec-endpoint http://localhost:8888`, or the UI's settings) to read
 * encrypted and offloaded payloads in the browser. Only give it to people allowed to read them.
 */
import http from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const toPayload = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

export function startCodecServer(options: { codecs: PayloadCodec[]; port?: number; host?: string; allowOrigin?: string }): Promise<http.Server> {
  const origin = options.allowOrigin ?? 'http://localhost:8233';
  const server = http.createServer(async (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const route = req.url?.replace(/\?.*$/, '');
    if (req.method !== 'POST' || (route !== '/encode' && route !== '/decode')) return void res.writeHead(404).end();
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payloads?: JsonPayload[] };
      let payloads = (body.payloads ?? []).map(toPayload);
      if (route === '/encode') for (const codec of options.codecs) payloads = await codec.encode(payloads);
      else for (const codec of [...options.codecs].reverse()) payloads = await codec.decode(payloads);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ payloads: payloads.map(toJson) }));
    } catch (err) {
      res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: (err as Error).message }));
    }
  });
  return new Promise((resolve) => server.listen(options.port ?? 8888, options.host ?? '127.0.0.1', () => resolve(server)));
}
