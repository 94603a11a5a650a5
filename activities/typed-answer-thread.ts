/**
 * The thread that checks one typed answer against a schema with regular expressions in it (see
 * typed-answer-check.ts): the answer and the schema come in as workerData, the result goes back as one
 * message. Nothing else runs here, so a pattern that backtracks for minutes only costs this thread,
 * which the worker ends at its time limit.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ResponseSchema, parseStructuredAnswer } from '../agent/response-schema';

const { text, schema } = workerData as { text: string; schema: ResponseSchema };
parentPort!.postMessage(parseStructuredAnswer(text, schema));
