/**
 * Reading a snapshot: its schema, then every invariant the agent relies on. A snapshot that breaks one
 * (hand-edited, or from a buggy exporter) would make the agent answer from the wrong context, so it is
 * refused with the reason. The same check guards what continue-as-new carries.
 */
import type { z } from 'zod';
import type { ContextualEntry, HistoryEntry } from './entries';
import { isContextual } from './entries';
import { SnapshotError } from './errors';
import { ARCHIVED_SNAPSHOT_VERSION, AgentSnapshot, SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from './snapshot';
import { MAX_SLEEP_SECONDS } from './timer-tools';
import { visibleEntries } from './time-travel';

/** Parses and checks `raw`; throws SnapshotError naming what is wrong. */
export function readSnapshot(raw: unknown): AgentSnapshot {
  const parsed = AgentSnapshot.safeParse(raw);
  if (!parsed.success) {
    throw new SnapshotError(
      'BAD_SNAPSHOT',
      `Not a livecontext agent snapshot v${SNAPSHOT_VERSION} or v${ARCHIVED_SNAPSHOT_VERSION} (${firstIssues(parsed.error)}).`,
    );
  }
  const problems = snapshotProblems(parsed.data);
  if (problems.length) {
    throw new SnapshotError('INCONSISTENT_SNAPSHOT', `The snapshot is inconsistent: ${problems.slice(0, 3).join('; ')}.`);
  }
  return parsed.data;
}

/**
 * A snapshot the agent's previous run checked with readSnapshot, as the same JSON, just before carrying it
 * over by continue-as-new: taken as it is instead of checked again (the schema alone costs a new run's
 * first workflow task ~15 ms per 1,000 entries). One of another format or version is checked after all.
 */
export function readCheckedSnapshot(raw: unknown): AgentSnapshot {
  const s = raw as Partial<AgentSnapshot> | null | undefined;
  if (s?.format === SNAPSHOT_FORMAT && (s.version === SNAPSHOT_VERSION || s.version === ARCHIVED_SNAPSHOT_VERSION) && Array.isArray(s.entries))
    return s as AgentSnapshot;
  return readSnapshot(raw);
}

/**
 * The check of a state about to be carried by continue-as-new: every invariant, and the schema of all
 * but the entries. Entries need no schema check here: each passed it as it entered the agent (appended,
 * imported or carried in), and checking them again is what made the task that continues cost several
 * times the bare workflow's. Even a passthrough schema over them copies every entry, so they are only
 * looked at: each an object with a numeric seq and a kind. Throws SnapshotError.
 */
export function checkCarried(snapshot: AgentSnapshot): void {
  const parsed = AgentSnapshot.safeParse({ ...snapshot, entries: [] });
  if (!parsed.success) throw new SnapshotError('BAD_SNAPSHOT', `The agent's state does not pass the snapshot schema (${firstIssues(parsed.error)}).`);
  const malformed = snapshot.entries.findIndex((e) => typeof e !== 'object' || e === null || typeof e.seq !== 'number' || typeof e.kind !== 'string');
  if (malformed >= 0) throw new SnapshotError('BAD_SNAPSHOT', `The agent's state does not pass the snapshot schema (entries.${malformed}: not an entry).`);
  const problems = snapshotProblems(snapshot);
  if (problems.length) throw new SnapshotError('INCONSISTENT_SNAPSHOT', `The agent's state is inconsistent: ${problems.slice(0, 3).join('; ')}.`);
}

/** The first schema issues, in words. */
function firstIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.')}: ${i.message}`)
    .join('; ');
}

/** Every broken invariant of a schema-valid snapshot, in words; empty when it is consistent. */
export function snapshotProblems(s: AgentSnapshot): string[] {
  const problems: string[] = [];
  const say = (p: string) => problems.length < 10 && problems.push(p);
  checkArchive(s, say);
  checkSequence(s.entries, s.nextSeq, say);
  const open = checkTurns(visibleEntries(s.entries), say); // what a rewind took out is no longer the agent's turn order
  checkInputs(s, say);

  // What belongs to the current batch only: its pending results, approvals and timers.
  const batch = new Set(open?.toolCalls.map((c) => c.toolCallId) ?? []);
  const answered = new Set<string>();
  for (const r of s.pendingToolResults) {
    if (!batch.has(r.toolCallId)) say(`pending result ${r.toolCallId} answers no call of the last model output`);
    if (answered.has(r.toolCallId)) say(`two pending results answer ${r.toolCallId}`);
    answered.add(r.toolCallId);
  }
  for (const id of Object.keys(s.approvals)) if (!batch.has(id)) say(`approval for ${id}, which is not a call of the current batch`);
  for (const id of Object.keys(s.effects ?? {})) if (!batch.has(id)) say(`effect record for ${id}, which is not a call of the current batch`);
  for (const [id, t] of Object.entries(s.timers ?? {})) {
    if (!batch.has(id)) say(`timer for ${id}, which is not a call of the current batch`);
    const started = Date.parse(t.startedAt);
    const wake = Date.parse(t.wakeAt);
    if (Number.isNaN(started) || Number.isNaN(wake) || wake < started || wake - started > MAX_SLEEP_SECONDS * 1000) {
      say(`timer of ${id} is not a wait of at most a year (${t.startedAt} → ${t.wakeAt})`);
    }
  }
  if (s.lastError && Number.isNaN(Date.parse(s.lastError.at))) say('lastError.at is not a date');
  return problems;
}

/** Version 2 has an archive and version 1 none; the working set starts after the archive, with a turn. */
function checkArchive(s: AgentSnapshot, say: (p: string) => void) {
  if ((s.version === ARCHIVED_SNAPSHOT_VERSION) !== (s.archive !== undefined)) say(`a version ${s.version} snapshot ${s.archive ? 'has' : 'lacks'} an archive`);
  if (!s.archive) return;
  const a = s.archive;
  const first = s.entries[0];
  if (first && first.seq <= a.throughSeq) say(`entry #${first.seq} is also in the archive (through #${a.throughSeq})`);
  else if (first && first.seq !== a.throughSeq + 1) say(`entry #${first.seq} does not follow the archive (through #${a.throughSeq})`);
  if (a.throughSeq >= s.nextSeq) say(`the archive (through #${a.throughSeq}) reaches past nextSeq ${s.nextSeq}`);
  if (a.inputSeq > s.consumedInputSeq) say(`the archive holds input #${a.inputSeq}, not taken yet`);
  let prev = a.manifest?.throughSeq ?? 0;
  for (const ref of a.segments) {
    if (ref.fromSeq <= prev || ref.toSeq < ref.fromSeq) say(`archive segment ${ref.fromSeq}–${ref.toSeq} is out of order`);
    prev = ref.toSeq;
  }
  if (prev !== a.throughSeq) say(`the archive's segments end at #${prev}, not at #${a.throughSeq}`);
}

function checkSequence(entries: readonly HistoryEntry[], nextSeq: number, say: (p: string) => void) {
  let prev = 0;
  for (const e of entries) {
    if (e.seq <= prev) say(`entry #${e.seq} follows #${prev}: sequence numbers must increase`);
    if (e.kind === 'rewind' && e.toSeq >= e.seq) say(`rewind #${e.seq} goes to #${e.toSeq}, which is not before it`);
    prev = e.seq;
  }
  if (prev >= nextSeq) say(`nextSeq ${nextSeq} is not above the last entry's #${prev}`);
}

/**
 * Seed 004's order of contextual entries: an input opens a turn (only when the last output had no tool
 * calls), an output answers an input or tool results, and tool results answer the calls of the output
 * just before them, one to one, in order. Returns the output whose calls still wait for results.
 */
function checkTurns(entries: readonly HistoryEntry[], say: (p: string) => void) {
  let last: ContextualEntry | undefined;
  let ended = false; // a turn_end since `last`: the turn is over even without an answer
  for (const e of entries) {
    if (e.kind === 'turn_end') {
      if (last?.kind === 'model_output' && last.toolCalls.length > 0) say(`turn end #${e.seq} leaves tool calls of output #${last.seq} without results`);
      ended = true;
    }
    if (!isContextual(e)) continue;
    const callsOpen = last?.kind === 'model_output' && last.toolCalls.length > 0;
    if (e.kind === 'model_input' && !ended && (callsOpen || (last !== undefined && last.kind !== 'model_output'))) {
      say(`input #${e.seq} does not follow a finished turn`);
    }
    if (e.kind === 'model_output') {
      if (last === undefined || last.kind === 'model_output') say(`output #${e.seq} answers neither an input nor tool results`);
      const ids = new Set(e.toolCalls.map((c) => c.toolCallId));
      if (ids.size !== e.toolCalls.length) say(`output #${e.seq} has duplicate tool call ids`);
    }
    if (e.kind === 'tool_results') {
      const calls = last?.kind === 'model_output' ? last.toolCalls : [];
      const batchFailed = e.results.length === 0 && !!e.executeError; // seed 000: only an ExecuteError
      const ok = callsOpen && (batchFailed || (e.results.length === calls.length && e.results.every((r, i) => r.toolCallId === calls[i].toolCallId)));
      if (!ok) say(`tool results #${e.seq} do not answer the calls of the output before them, one to one and in order`);
    }
    last = e;
    ended = false;
  }
  return last?.kind === 'model_output' && last.toolCalls.length > 0 ? last : undefined;
}

function checkInputs(s: AgentSnapshot, say: (p: string) => void) {
  for (const [key, seq] of s.acceptedKeys ?? []) if (seq >= s.nextInputSeq) say(`idempotency key "${key.slice(0, 40)}" names input #${seq}, not accepted yet`);
  if (s.consumedInputSeq >= s.nextInputSeq) say(`consumedInputSeq ${s.consumedInputSeq} is not below nextInputSeq ${s.nextInputSeq}`);
  let prev = s.consumedInputSeq;
  for (const item of s.inbox) {
    if (item.inputSeq <= prev || item.inputSeq >= s.nextInputSeq) {
      say(`queued input #${item.inputSeq} is out of order (after #${prev}, below ${s.nextInputSeq})`);
    }
    prev = item.inputSeq;
  }
  let seen = s.archive?.inputSeq ?? 0;
  for (const e of s.entries) {
    if (e.kind !== 'model_input' || e.inputSeq === undefined) continue;
    if (e.inputSeq <= seen || e.inputSeq > s.consumedInputSeq) say(`input entry #${e.seq} has input number ${e.inputSeq} out of order`);
    seen = e.inputSeq;
  }
}
