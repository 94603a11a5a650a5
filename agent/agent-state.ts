/**
 * AgentState (seed 000): the append-only history and its semantic append API. Every write goes through
 * one of the `append*` methods, which validate, number the entry and stamp it with the injected clock.
 */
import {
  ContentSection,
  ContextualEntry,
  HistoryEntry,
  Metadata,
  ModelInputEntry,
  ModelInvocationDescriptor,
  ModelOutputEntry,
  SystemInstructionEntry,
  TokenUsage,
  ToolCallRequest,
  ToolCallResult,
  ToolResultsEntry,
  WidgetWriteEntry,
  type ToolRulesEntry,
  type A2aPushEntry,
  type CompactionEntry,
  type ModelFailureEntry,
  type RewindEntry,
  type TurnEndEntry,
  MODEL_FAILURE_MESSAGE_MAX,
  isContextual,
  lastCompaction,
} from './entries';
import type { Attachment } from './attachments';
import type { ResponseSchema } from './response-schema';
import { HistoryValidationError } from './errors';
import { visibleEntries } from './time-travel';
import {
  type ArchiveIndex,
  type ArchivedPointState,
  type SegmentRef,
  archiveAfterFold,
  archiveAfterRewind,
  archiveAfterSeal,
  chooseSeal,
  emptyArchive,
  entryBytes,
} from './archive';

/** Seed 000: metadata stays light, at most 2 KB of JSON per entry. */
export const METADATA_MAX_BYTES = 2048;

/** Milliseconds since the epoch. In workflows this is Temporal's deterministic `Date.now()`. */
export type Clock = () => number;

type Draft<T extends HistoryEntry> = Omit<T, 'seq' | 'timestamp' | 'kind'>;

export class AgentState {
  private history: HistoryEntry[];
  private nextSeqValue: number;
  /** Older entries sealed into the archive (see archive.ts); `history` holds the later ones. */
  private archiveValue: ArchiveIndex | undefined;
  /** JSON bytes of each working entry, parallel to `history`; measured when first asked. */
  private sizes: number[] | undefined;
  /** The working entries still in force (see visibleEntries), once a rewind is among them; else `history` itself. */
  private visibleValue: HistoryEntry[] | undefined;

  constructor(
    private readonly clock: Clock,
    restored?: { entries: readonly HistoryEntry[]; nextSeq: number; archive?: ArchiveIndex },
  ) {
    this.history = restored ? [...restored.entries] : [];
    this.nextSeqValue = restored?.nextSeq ?? 1;
    this.archiveValue = restored?.archive;
    this.refreshVisible();
  }

  /** Once per run start, rewind and seal: one pass, no copy while no rewind is in the working set. */
  private refreshVisible(): void {
    const visible = visibleEntries(this.history);
    this.visibleValue = visible === this.history ? undefined : [...visible];
  }

  /**
   * The working entries still in force: those a rewind took out are left out (see visibleEntries). What
   * the agent decides from (its run state, the instruction, budgets) reads these; snapshots keep `entries`.
   */
  get visible(): readonly HistoryEntry[] {
    return this.visibleValue ?? this.history;
  }

  /** Read-only view of the working set: every entry not archived, oldest first (all of them for an agent without an archive). */
  get entries(): readonly HistoryEntry[] {
    return this.history;
  }

  /** The archive of older entries, once some were sealed. */
  get archive(): ArchiveIndex | undefined {
    return this.archiveValue;
  }

  /** Entries in all, archived ones included. */
  get entryCount(): number {
    return (this.archiveValue?.entries ?? 0) + this.history.length;
  }

  /** JSON bytes of the working entries (measured once per entry). */
  workingBytes(): number {
    this.sizes ??= this.history.map(entryBytes);
    let bytes = 0;
    for (const size of this.sizes) bytes += size;
    return bytes;
  }

  /** The working entries to seal next, keeping about `keepBytes` (see chooseSeal); undefined when none are due. */
  sealCandidate(keepBytes: number): { fromSeq: number; toSeq: number; count: number; bytes: number } | undefined {
    this.sizes ??= this.history.map(entryBytes);
    const cut = chooseSeal(this.history, this.sizes, keepBytes);
    // A segment never ends between a rewind's point and the rewind: what it took out is sealed with it,
    // so the archive's state (instruction, widgets, day usage) is computed from what is in force.
    if (cut && this.visibleValue && this.history.some((e) => e.kind === 'rewind' && cut.toSeq > e.toSeq && cut.toSeq < e.seq)) return undefined;
    return cut;
  }

  /**
   * The oldest working entries, through `ref.toSeq`, are in the segment `ref`: they leave the working set,
   * and the archive's index carries on what later entries build on. `folded`: references moved into the
   * manifest `manifestKey` (see archive.ts foldable).
   */
  sealed(ref: SegmentRef, budgetFromSeq: number, folded?: { segments: readonly SegmentRef[]; manifestKey: string }): void {
    const count = this.history.findIndex((e) => e.seq > ref.toSeq);
    const n = count < 0 ? this.history.length : count;
    if (n === 0 || this.history[0].seq !== ref.fromSeq) {
      throw new HistoryValidationError('ARCHIVE_MISALIGNED', `Segment ${ref.fromSeq}–${ref.toSeq} does not start the working set (#${this.history[0]?.seq}).`);
    }
    // A rewind made while the segment was written may go back into it: the seal is not taken (the
    // segment stays unreferenced), so what a rewind took out is never split from it.
    if (this.visibleValue && this.history.some((e, i) => i >= n && e.kind === 'rewind' && e.toSeq < ref.toSeq)) {
      throw new HistoryValidationError('ARCHIVE_SPLITS_REWIND', `Segment ${ref.fromSeq}–${ref.toSeq} would split a rewind from what it took out.`);
    }
    const leaving = this.history.slice(0, n);
    let index = this.archiveValue ?? emptyArchive();
    if (folded?.segments.length) index = archiveAfterFold(index, folded.segments, folded.manifestKey);
    this.archiveValue = archiveAfterSeal(index, leaving, ref, budgetFromSeq);
    this.history = this.history.slice(n);
    this.sizes = this.sizes?.slice(n);
    if (this.visibleValue) this.refreshVisible();
  }

  /** The sequence number the next entry will get. */
  get nextSeq(): number {
    return this.nextSeqValue;
  }

  /** Sequence number of the newest entry, 0 when empty. */
  get lastSeq(): number {
    return this.nextSeqValue - 1;
  }

  /** The newest entry that projects into the model context (system instruction entries are skipped). */
  lastContextual(): ContextualEntry | undefined {
    const entries = this.visible;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (isContextual(entry)) return entry;
    }
    return undefined;
  }

  /** The system instruction currently in force ('' when none was ever set). */
  get systemInstruction(): string {
    const entries = this.visible;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry.kind === 'system_instruction') return entry.instruction;
    }
    return this.archiveValue?.systemInstruction ?? '';
  }

  appendModelInput(draft: {
    sections: ContentSection[];
    inputSeq?: number;
    sender?: string;
    attachments?: Attachment[];
    responseSchema?: ResponseSchema;
    metadata?: Metadata;
  }) {
    if (draft.sections.length === 0) {
      throw new HistoryValidationError('EMPTY_INPUT', 'A model input needs at least one content section.');
    }
    if (draft.sections.every((s) => s.content.trim() === '')) {
      throw new HistoryValidationError('EMPTY_INPUT', 'A model input must not be blank.');
    }
    return this.append<ModelInputEntry>('model_input', draft);
  }

  appendModelOutput(draft: {
    contents: string[];
    toolCalls: ToolCallRequest[];
    invocation: ModelInvocationDescriptor;
    thinking?: string;
    thinkingSignature?: string;
    usage?: TokenUsage;
    metadata?: Metadata;
  }) {
    const hasText = draft.contents.some((c) => c.length > 0);
    if (!hasText && draft.toolCalls.length === 0) {
      throw new HistoryValidationError('EMPTY_OUTPUT', 'A model output must carry content or tool calls.');
    }
    const inv = draft.invocation;
    if (!inv || !inv.providerId || !inv.specification || !inv.model) {
      throw new HistoryValidationError('MISSING_INVOCATION', 'A model output must record its ModelInvocationDescriptor.');
    }
    const ids = new Set<string>();
    for (const call of draft.toolCalls) {
      if (ids.has(call.toolCallId)) {
        throw new HistoryValidationError('DUPLICATE_TOOL_CALL_ID', `Tool call id ${call.toolCallId} appears twice.`);
      }
      ids.add(call.toolCallId);
    }
    return this.append<ModelOutputEntry>('model_output', draft);
  }

  /**
   * Results must answer the calls of the preceding model output one-to-one, in order, by toolCallId —
   * or be none at all, with an `executeError` saying why the batch as a whole could not run (seed 000).
   */
  appendToolResults(draft: { results: ToolCallResult[]; executeError?: string; metadata?: Metadata }) {
    const last = this.lastContextual();
    if (!last || last.kind !== 'model_output' || last.toolCalls.length === 0) {
      throw new HistoryValidationError('NO_PENDING_TOOL_CALLS', 'Tool results must follow a model output with tool calls.');
    }
    if (draft.results.length === 0 && draft.executeError) return this.append<ToolResultsEntry>('tool_results', draft);
    if (draft.results.length !== last.toolCalls.length) {
      throw new HistoryValidationError('TOOL_RESULTS_MISALIGNED', `Expected ${last.toolCalls.length} tool results, got ${draft.results.length}.`);
    }
    draft.results.forEach((result, i) => {
      const call = last.toolCalls[i];
      if (result.toolCallId !== call.toolCallId) {
        throw new HistoryValidationError('TOOL_RESULTS_MISALIGNED', `Result ${i} answers ${result.toolCallId}, but call ${i} is ${call.toolCallId}.`);
      }
    });
    return this.append<ToolResultsEntry>('tool_results', draft);
  }

  /** A host's write to a widget (already applied by the widget); see WidgetWriteEntry. */
  appendWidgetWrite(draft: { widget: string; write: WidgetWriteEntry['write']; by?: string }) {
    return this.append<WidgetWriteEntry>('widget_write', draft);
  }

  /** The agent's tool rules from here on (see ToolRulesEntry). */
  appendToolRules(draft: { rules: ToolRulesEntry['rules']; change: ToolRulesEntry['change']; by?: string }) {
    return this.append<ToolRulesEntry>('tool_rules', draft);
  }

  /** A change of the A2A push notification configs, or a failed delivery (see A2aPushEntry). */
  appendA2aPush(draft: Omit<A2aPushEntry, 'seq' | 'timestamp' | 'kind'>) {
    return this.append<A2aPushEntry>('a2a_push', draft);
  }

  /** The agent waits for input from here although the turn has no answer (see TurnEndEntry). */
  appendTurnEnd(draft: { reason: TurnEndEntry['reason']; question?: string; by?: string }) {
    return this.append<TurnEndEntry>('turn_end', draft);
  }

  /** Whether a turn_end came after the last context message: the turn is over, the agent waits for input. */
  turnEnded(): boolean {
    const entries = this.visible;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry.kind === 'turn_end') return true;
      if (isContextual(entry)) return false;
    }
    return false;
  }

  /**
   * A summary of the conversation through `throughSeq` (see CompactionEntry). It must cover more than
   * the compaction before it, end before this entry, and never cut a tool call from its results: the
   * last context message it covers is not a model output whose calls are answered after the cut.
   */
  appendCompaction(draft: { summary: string; throughSeq: number; invocation: ModelInvocationDescriptor; usage?: TokenUsage; metadata?: Metadata }) {
    if (draft.summary.trim() === '') throw new HistoryValidationError('EMPTY_SUMMARY', 'A compaction must carry a summary.');
    if (!Number.isInteger(draft.throughSeq) || draft.throughSeq < 1 || draft.throughSeq > this.lastSeq) {
      throw new HistoryValidationError('COMPACTION_RANGE', `A compaction covers entries up to #${this.lastSeq}, not #${draft.throughSeq}.`);
    }
    const visible = this.visible; // a rewound compaction no longer stands for anything
    const before = lastCompaction(visible) ?? this.archiveValue?.compaction; // the newest may be archived
    if (before && draft.throughSeq <= before.throughSeq) {
      throw new HistoryValidationError('COMPACTION_RANGE', `Entries up to #${before.throughSeq} are summarised already (compaction #${before.seq}).`);
    }
    for (let i = visible.length - 1; i >= 0; i--) {
      const e = visible[i];
      if (e.seq > draft.throughSeq || !isContextual(e)) continue;
      if (e.kind === 'model_output' && e.toolCalls.length > 0) {
        throw new HistoryValidationError(
          'COMPACTION_SPLITS_CALL',
          `A compaction through #${draft.throughSeq} would cut the tool calls of #${e.seq} from their results.`,
        );
      }
      break;
    }
    const inv = draft.invocation;
    if (!inv || !inv.providerId || !inv.specification || !inv.model) {
      throw new HistoryValidationError('MISSING_INVOCATION', 'A compaction must record the ModelInvocationDescriptor of its summary call.');
    }
    return this.append<CompactionEntry>('compaction', draft);
  }

  /** A model call that left the agent blocked (see ModelFailureEntry); the message is cut to MODEL_FAILURE_MESSAGE_MAX. */
  appendModelFailure(draft: Draft<ModelFailureEntry>) {
    const message = draft.message.length > MODEL_FAILURE_MESSAGE_MAX ? `${draft.message.slice(0, MODEL_FAILURE_MESSAGE_MAX - 1)}…` : draft.message;
    return this.append<ModelFailureEntry>('model_failure', { ...draft, message });
  }

  /** The agent goes back to `toSeq` (checked by the caller, see Agent.rewind): later entries leave what is in force. */
  appendRewind(draft: { toSeq: number; by?: string; reason?: string }) {
    const entry = this.append<RewindEntry>('rewind', draft);
    this.refreshVisible();
    return entry;
  }

  /** The index takes the state at the archived entry `toSeq` (see archiveAfterRewind); the rewind entry follows. */
  rewindArchive(toSeq: number, at: ArchivedPointState): void {
    if (this.archiveValue) this.archiveValue = archiveAfterRewind(this.archiveValue, toSeq, at);
  }

  setSystemInstruction(instruction: string) {
    return this.append<SystemInstructionEntry>('system_instruction', { instruction });
  }

  private append<T extends HistoryEntry>(kind: T['kind'], draft: Draft<T>): T {
    if (draft.metadata) checkMetadata(draft.metadata);
    const entry = {
      ...stripUndefined(draft),
      seq: this.nextSeqValue,
      timestamp: new Date(this.clock()).toISOString(),
      kind,
    } as unknown as T;
    // The schema a carried or imported state is read with: what enters history must pass it, so that
    // continue-as-new and import can never fail on what the agent already holds.
    const checked = HistoryEntry.safeParse(entry);
    if (!checked.success) {
      const why = checked.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || kind}: ${i.message}`)
        .join('; ');
      throw new HistoryValidationError('INVALID_ENTRY', `A ${kind} entry would not be valid history (${why}).`);
    }
    this.history.push(entry);
    this.visibleValue?.push(entry); // what follows the last rewind is in force
    this.sizes?.push(entryBytes(entry));
    this.nextSeqValue += 1;
    return entry;
  }
}

/** Metadata keys are snake_case and the whole object fits in METADATA_MAX_BYTES of JSON. */
export function checkMetadata(metadata: Metadata): void {
  for (const key of Object.keys(metadata)) {
    if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(key)) {
      throw new HistoryValidationError('METADATA_KEY', `Metadata key "${key}" is not snake_case.`);
    }
  }
  const bytes = utf8Length(JSON.stringify(metadata));
  if (bytes > METADATA_MAX_BYTES) {
    throw new HistoryValidationError(
      'METADATA_TOO_LARGE',
      `Entry metadata is ${bytes} bytes; the limit is ${METADATA_MAX_BYTES}. Put large data in the entry body.`,
    );
  }
}

/** UTF-8 byte length without TextEncoder/Buffer, which the workflow sandbox may not offer. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** JSON payloads drop `undefined`; dropping it here keeps live state and replayed state identical. */
function stripUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}
