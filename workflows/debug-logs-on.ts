/**
 * Preloaded after workflows/shared-modules.ts, which turns the workflow's category debug lines off:
 * sends them to the worker's logger again (workflows/debug-logs.ts). createLivecontextWorker adds it when
 * LIVECONTEXT_DEBUG names a category (DEBUG_LOGS_PATH).
 */
import { setDebugLogs } from './debug-logs';

setDebugLogs(true);
