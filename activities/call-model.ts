/**
 * The callModel activity: fetch the entries this worker lacks, render the context with the same pure
 * function the workflow uses, stream from the routed model through a MessageAssembler, and return one
 * assembled message. A stream that ends without `done` is an error (retried), never a message.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MessageAssembler, type ModelCallResult, renderModelContext } from '../agent';
import { inputBudgetFor, tokenizerFor } from './models/context-window';
import type { EntryCache } from './entry-cache';
import type { ModelRouter } from './models/model-router';
import type { ToolRegistry } from './tools/registry';
import type { CallModelInput } from './types';

export interface CallModelDeps {
  models: ModelRouter;
  tools: ToolRegistry;
  entries: EntryCache;
}

export function createCallModel(deps: CallModelDeps) {
  return async function callModel(input: CallModelInput): Promise<ModelCallResult> {
    const ctx = Context.current();
    const entries = await deps.entries.entriesUpTo(ctx.client, input.agentId, input.runId, input.uptoSeq);
    const maxInputTokens = inputBudgetFor(input.model, input.contextWindow);
    const tokenizer = tokenizerFor(input.model);
    const context = renderModelContext(entries, {
      uptoSeq: input.uptoSeq,
      ...(maxInputTokens !== undefined ? { maxInputTokens } : {}),
      ...(tokenizer ? { tokenizer } : {}),
    });
    const { system, messages } = context;
    const model = deps.models.resolve(input.model);
    const toolSpecs = deps.tools.specsFor(input.tools);

    const assembler = new MessageAssembler();
    try {
      for await (const delta of model.stream(messages, toolSpecs, system, {
        signal: ctx.cancellationSignal,
        requestMetadata: { sessionId: input.agentId, runId: input.runId },
      })) {
        assembler.consume(delta);
        ctx.heartbeat();
        if (assembler.status === 'done' || assembler.status === 'error') break;
      }
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      throw ApplicationFailure.create({ type: 'MODEL_STREAM_FAILED', message: (err as Error)?.message ?? String(err), cause: err as Error });
    }

    const error = assembler.getError();
    if (error) throw ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: !error.retryable });
    if (assembler.status !== 'done') {
      throw ApplicationFailure.create({ type: 'STREAM_INCOMPLETE', message: 'The model stream ended before it finished.' });
    }
    const message = assembler.buildFinalMessage();
    if (!message.contents.length && !message.toolCalls.length) {
      throw ApplicationFailure.create({ type: 'EMPTY_OUTPUT', message: 'The model returned neither text nor tool calls.' });
    }
    const info = model.modelInfo();
    const result: ModelCallResult = {
      contents: message.contents,
      toolCalls: message.toolCalls,
      invocation: { providerId: info.providerId, specification: info.specification, model: info.modelId },
      metadata: {
        estimated_input_tokens: context.estimatedInputTokens,
        ...(context.dropped ? { context_dropped: context.dropped } : {}),
      },
    };
    if (message.thinking) result.thinking = message.thinking;
    if (message.usage) result.usage = message.usage;
    return result;
  };
}
