/**
 * Issue 26: what `npm start` says about the model is true to the environment (OPENAI_BASE_URL without a
 * model is not "no API key"), and the dev server line says whether this command started the server.
 */
import { demoReason, devServerLine } from '../../cli/up-messages';

test('why a new agent gets the demo model', () => {
  expect(demoReason({})).toBe('No API key configured: using the offline demo model (not an LLM).');
  const local = demoReason({ OPENAI_BASE_URL: 'http://localhost:11434/v1' });
  expect(local).not.toMatch(/No API key/);
  expect(local).toMatch(/^OPENAI_BASE_URL is set, but no model is named: .*LIVECONTEXT_MODEL=openai:<model>.*no API key needed/);
  expect(demoReason({ LIVECONTEXT_MODEL: 'demo:offline', OPENAI_BASE_URL: 'http://x/v1' })).toMatch(/^LIVECONTEXT_MODEL names the offline demo model/);
});

test('the dev server line: started here, or whose server is used and that it keeps running', () => {
  const server = { address: '127.0.0.1:7233', uiUrl: 'http://localhost:8233', stop: async () => {} };
  expect(devServerLine({ ...server, started: true })).toBe(
    'Temporal dev server 127.0.0.1:7233 (started here; it stops when this exits) · Web UI http://localhost:8233',
  );
  expect(devServerLine({ ...server, started: false, reusedFrom: 'started by `livecontext dev` (pid 7 in /p); it stops when that command exits' })).toBe(
    'Using the Temporal server already running at 127.0.0.1:7233, started by `livecontext dev` (pid 7 in /p); it stops when that command exits; it keeps running when this exits · Web UI http://localhost:8233',
  );
});
