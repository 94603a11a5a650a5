/**
 * The model's text of a working turn as A2A artifact chunks, while it streams: each model message is an
 * artifact `text-<messageId>` whose first chunk creates it (`append: false`), whose later chunks append to
 * it, and whose end is an empty chunk with `lastChunk: true`. The text comes from the gateway's events feed
 * (agent-feed.ts: the history plus the running call's partial output), so a chunk is what AG-UI streams
 * as TEXT_MESSAGE_CONTENT; the turn's answer still ends the task as its `answer` artifact.
 */
import { EventType } from '@ag-ui/core';
import type { StreamResponse } from '@a2a-js/sdk';
import type { AgentClient } from '../../client/agent-client';
import { AgentFeed } from '../events/agent-feed';
import { cursorAt } from '../events/cursor';
import type { Emitted } from '../events/derive-events';
import { type TurnRef, taskIdOf } from './task-id';
import { textPart } from './task-view';

export class TextChunks {
  private feed: AgentFeed | undefined;
  /** The messages whose artifact was created and not yet ended. */
  private readonly open = new Set<string>();

  constructor(
    private readonly agents: AgentClient,
    private readonly ref: TurnRef,
  ) {}

  /**
   * For about `ms`: one look at the agent, then its model stream's text as it arrives. Called only while
   * the turn works, so the feed starts at the turn (text the turn wrote before is in its entries and answer).
   */
  async *during(ms: number, signal: AbortSignal): AsyncGenerator<StreamResponse> {
    this.feed ??= new AgentFeed(
      this.agents,
      this.ref.agentId,
      { kind: 'agent', threadId: this.ref.agentId },
      cursorAt((await this.agents.state(this.ref.agentId)).lastSeq),
    );
    const poll = await this.feed.poll();
    if (poll.reset) return;
    yield* this.chunks(poll.emitted);
    for await (const e of this.feed.between(ms, signal)) yield* this.chunks([e]);
  }

  /** Before the task's last event: the text that landed since the last look, and an end for every open message. */
  async *flush(): AsyncGenerator<StreamResponse> {
    if (!this.feed || !this.open.size) return;
    const poll = await this.feed.poll().catch(() => undefined);
    if (poll && !poll.reset) yield* this.chunks(poll.emitted);
    for (const id of [...this.open]) yield this.chunk(id, '', true);
  }

  private *chunks(emitted: Emitted[]): Generator<StreamResponse> {
    for (const { event } of emitted) {
      if (event.type === EventType.TEXT_MESSAGE_CONTENT && event.delta) yield this.chunk(event.messageId, event.delta, false);
      else if (event.type === EventType.TEXT_MESSAGE_END && this.open.has(event.messageId)) yield this.chunk(event.messageId, '', true);
    }
  }

  private chunk(messageId: string, text: string, lastChunk: boolean): StreamResponse {
    const append = this.open.has(messageId);
    if (lastChunk) this.open.delete(messageId);
    else this.open.add(messageId);
    return {
      payload: {
        $case: 'artifactUpdate',
        value: {
          taskId: taskIdOf(this.ref),
          contextId: this.ref.agentId,
          artifact: { artifactId: `text-${messageId}`, name: 'text', description: '', parts: [textPart(text)], metadata: undefined, extensions: [] },
          append,
          lastChunk,
          metadata: undefined,
        },
      },
    };
  }
}
