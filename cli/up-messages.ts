/** What `livecontext up` (npm start) says about the server it uses and the model its agent runs on. */
import { OFFLINE_DEMO_MODEL } from '../activities/models/offline-demo-model';
import type { DevServer } from '../worker/dev-server';

/** What the dev server line says: started here (and stopped on exit), or whose server is used. */
export function devServerLine(server: DevServer): string {
  if (server.started) return `Temporal dev server ${server.address} (started here; it stops when this exits) · Web UI ${server.uiUrl}`;
  return `Using the Temporal server already running at ${server.address}, ${server.reusedFrom ?? 'not started here'}; it keeps running when this exits · Web UI ${server.uiUrl}`;
}

/** Why a new agent gets the offline demo model, true to the environment. */
export function demoReason(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LIVECONTEXT_MODEL === OFFLINE_DEMO_MODEL) return 'LIVECONTEXT_MODEL names the offline demo model (not an LLM).';
  if (env.OPENAI_BASE_URL) {
    return (
      'OPENAI_BASE_URL is set, but no model is named: using the offline demo model (not an LLM). ' +
      "Name your server's model with LIVECONTEXT_MODEL=openai:<model> or `npm start -- --model openai:<model>` (no API key needed), or /model openai:<model> for this agent."
    );
  }
  return 'No API key configured: using the offline demo model (not an LLM).';
}
