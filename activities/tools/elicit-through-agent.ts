/**
 * A tool's question to the agent's people (an MCP server's elicitation), asked through the agent's own
 * workflow: an update opens it as a wait (`elicit-<batch seq>-<toolCallId>-<n>`), then the answer is
 * read by a query every second while the call heartbeats, until it comes or the call is cancelled or
 * times out. The question's number n counts this attempt's questions, so a call run again (its worker
 * died, the tool retried) asking its n-th question again gets the answer already given: nobody is asked
 * twice, and an answer given while no worker was running is not lost. Nothing is ever answered for the
 * person: without an answer the call waits until its own timeout.
 */
import type { Client } from '@temporalio/client';
import type { Elicitation, ElicitationAnswer } from '../../agent/index';
import { elicitationQuery, openElicitationUpdate } from '../../workflows/messages';

const POLL_MS = 1000;
/** A retried call whose n-th question differs from the one asked before asks it under the next number; at most this many. */
const MAX_QUESTIONS = 100;

export interface ElicitRequest {
  message: string;
  requestedSchema: Record<string, unknown>;
  /** The MCP server that asks. */
  server?: string;
}

export type ElicitFn = (question: ElicitRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

export function elicitThroughAgent(options: {
  /** The worker's client (read only when a question comes: a tool run outside a worker has none). */
  client: () => Client;
  agentId: string;
  toolCallId: string;
  /** Called when the question is open and whenever the answer is looked for (heartbeat with it). */
  waiting: (waitId: string, message: string) => void;
}): ElicitFn {
  let asked = 0;
  return async (question, signal) => {
    const handle = options.client().workflow.getHandle(options.agentId);
    let opened: Elicitation | undefined;
    while (!opened) {
      asked += 1;
      if (asked > MAX_QUESTIONS) throw new Error(`a call may ask at most ${MAX_QUESTIONS} questions`);
      const e = await handle.executeUpdate(openElicitationUpdate, {
        args: [
          {
            toolCallId: options.toolCallId,
            n: asked,
            message: question.message,
            requestedSchema: question.requestedSchema,
            ...(question.server ? { server: question.server } : {}),
          },
        ],
      });
      // Asked before under this number: the same question takes its answer; another one is asked anew.
      if (e.message === question.message && sameJson(e.requestedSchema, question.requestedSchema)) opened = e;
    }
    const waitId = opened.waitId;
    let answer = opened.answer;
    while (!answer) {
      signal.throwIfAborted();
      options.waiting(waitId, question.message);
      await sleep(POLL_MS, signal);
      try {
        answer = (await handle.query(elicitationQuery, waitId))?.answer;
      } catch (err) {
        if (signal.aborted) throw err;
        // A query can fail while the workflow's worker restarts: ask again at the next poll.
      }
    }
    return answer;
  };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
