/**
 * What a task's status says. The scheduler keeps a TaskState per task (its cursor, failures and retry, last runs,
 * skipped periods, a claim another gateway holds, its counters); this module projects it as the TaskStatus that REST,
 * GraphQL and /metrics read, persists it in service_index (Kairograph's progress in `_kairograph_rollups`/`status`,
 * KairosDB's status row beside it) and restores it, so a restart, another gateway or one with ROLLUPS=off reads the
 * same. A failure's count, retry and backoff are set here alone.
 */
import { hostname } from 'node:os';
import type { Logger } from '../lib/log.js';
import { kairosStatusJson } from './kairos-status-json.js';
import { countDue, periodAt } from './periods.js';
import type { RollupTask } from './rollup-task.js';
import type { RunRecord } from './run-period.js';
import type { RollupTaskStore, StoredTask } from './task-store.js';

/** Periods skipped because catch-up after downtime reached its bound. */
export interface SkippedPeriods {
  readonly fromMs: number;
  readonly toMs: number;
  readonly periods: number;
}

/** What a task's status says: readable over REST, GraphQL and /metrics. */
export interface TaskStatus {
  readonly id: string;
  readonly name?: string;
  /** Why the task cannot run (its stored JSON does not parse here); it is then never run. */
  readonly error?: string;
  /** Start of the first period not rolled up yet: every period before it is completed, or was skipped. */
  readonly completedThroughMs?: number;
  /** Start of the first period of the unbroken run of completed periods that ends at `completedThroughMs`. */
  readonly coveredFromMs?: number;
  /** Periods that ended (and ROLLUPS_DELAY_MS passed) but are not completed yet. */
  readonly pendingPeriods: number;
  /** Failed runs in a row of the first pending period. */
  readonly failures: number;
  /** When the first pending period is tried again after a failure. */
  readonly retryAtMs?: number;
  readonly lastRun?: RunRecord;
  readonly lastSuccess?: RunRecord;
  readonly skipped?: SkippedPeriods;
  /** Another gateway's claim on the first pending period, when it has one. */
  readonly heldBy?: { readonly owner: string; readonly untilMs: number };
}

/** Per task, since the scheduler started: what /metrics counts. */
export interface TaskCounters {
  runs: number;
  failures: number;
  pointsWritten: number;
  periodsSkipped: number;
}

/** The scheduler's state of one task, which its status is projected from and which is persisted. */
export interface TaskState {
  id: string;
  task?: RollupTask;
  json: string;
  error?: string;
  cursorMs?: number;
  coveredFromMs?: number;
  failures: number;
  retryAtMs?: number;
  lastRun?: RunRecord;
  lastSuccess?: RunRecord;
  skipped?: SkippedPeriods;
  heldBy?: { owner: string; untilMs: number };
  counters: TaskCounters;
  /** When this scheduler last pruned the task's old claims. */
  prunedAtMs?: number;
}

/** What Kairograph keeps per task in `_kairograph_rollups`/`status` (task-store.ts). */
interface PersistedStatus {
  readonly cursorMs: number;
  readonly coveredFromMs?: number;
  readonly failures: number;
  readonly retryAtMs?: number;
  readonly lastRun?: RunRecord;
  readonly lastSuccess?: RunRecord;
  readonly skipped?: SkippedPeriods;
}

/** The wait after a first failure; it doubles with each failure in a row, up to MAX_RETRY_MS. */
export const FIRST_RETRY_MS = 5000;
const MAX_RETRY_MS = 600_000;

/** A task seen for the first time: no progress, no failure. */
export function newTaskState(id: string, json: string): TaskState {
  return { id, json, failures: 0, counters: { runs: 0, failures: 0, pointsWritten: 0, periodsSkipped: 0 } };
}

/**
 * A failed attempt at the task's first pending period (its run, or a claim or read the store failed): counted, and
 * tried again after a wait that doubles with each failure in a row, so a broken task or store is not hammered.
 */
export function recordFailure(state: TaskState, nowMs: number): void {
  state.failures++;
  state.counters.failures++;
  state.retryAtMs = nowMs + Math.min(FIRST_RETRY_MS * 2 ** (state.failures - 1), MAX_RETRY_MS);
}

/** When the task's next period is due (or its retry, when later). */
export function nextDueMs(state: TaskState, delayMs: number): number | undefined {
  if (state.task === undefined || state.cursorMs === undefined) return undefined;
  const due = periodAt(state.cursorMs, state.task.executionInterval).endMs + delayMs;
  return state.retryAtMs !== undefined ? Math.max(due, state.retryAtMs) : due;
}

export function projectStatus(state: TaskState, delayMs: number, nowMs: number): TaskStatus {
  const pending =
    state.task !== undefined && state.cursorMs !== undefined
      ? countDue(state.cursorMs, state.task.executionInterval, nowMs - delayMs, Number.MAX_SAFE_INTEGER)
      : 0;
  return {
    id: state.id,
    ...(state.task ? { name: state.task.name } : {}),
    ...(state.error !== undefined ? { error: state.error } : {}),
    ...(state.cursorMs !== undefined ? { completedThroughMs: state.cursorMs } : {}),
    ...(state.coveredFromMs !== undefined ? { coveredFromMs: state.coveredFromMs } : {}),
    pendingPeriods: pending,
    failures: state.failures,
    ...(state.retryAtMs !== undefined && state.failures > 0 ? { retryAtMs: state.retryAtMs } : {}),
    ...(state.lastRun ? { lastRun: state.lastRun } : {}),
    ...(state.lastSuccess ? { lastSuccess: state.lastSuccess } : {}),
    ...(state.skipped ? { skipped: state.skipped } : {}),
    ...(state.heldBy ? { heldBy: state.heldBy } : {}),
  };
}

/**
 * A task's status as the gateway that ran it last recorded it in service_index, for a gateway whose scheduler does not
 * run the task (ROLLUPS=off, or not read yet).
 */
export async function recordedStatus(
  store: RollupTaskStore,
  stored: StoredTask,
  delayMs: number,
  nowMs: number,
): Promise<TaskStatus> {
  const state = newTaskState(stored.id, stored.json);
  if (stored.task !== undefined) state.task = stored.task;
  else state.error = stored.error;
  await restoreStatus(state, store);
  return projectStatus(state, delayMs, nowMs);
}

/** Reads a task's recorded progress into its state; false when what is recorded does not parse. */
export async function restoreStatus(state: TaskState, store: RollupTaskStore): Promise<boolean> {
  const text = await store.ownStatus(state.id);
  if (text === undefined) return true;
  try {
    const saved = JSON.parse(text) as PersistedStatus;
    if (typeof saved.cursorMs === 'number') state.cursorMs = saved.cursorMs;
    if (typeof saved.coveredFromMs === 'number') state.coveredFromMs = saved.coveredFromMs;
    state.failures = saved.failures ?? 0;
    if (typeof saved.retryAtMs === 'number') state.retryAtMs = saved.retryAtMs;
    if (saved.lastRun) state.lastRun = saved.lastRun;
    if (saved.lastSuccess) state.lastSuccess = saved.lastSuccess;
    if (saved.skipped) state.skipped = saved.skipped;
    return true;
  } catch {
    return false;
  }
}

/**
 * Records the task's progress (Kairograph's own) and, after a run, the run in KairosDB's status row, so KairosDB's
 * status API shows it too.
 */
export async function persistStatus(
  state: TaskState,
  store: RollupTaskStore,
  delayMs: number,
  log: Logger,
  record?: RunRecord,
): Promise<void> {
  const saved: PersistedStatus = {
    cursorMs: state.cursorMs!,
    ...(state.coveredFromMs !== undefined ? { coveredFromMs: state.coveredFromMs } : {}),
    failures: state.failures,
    ...(state.retryAtMs !== undefined && state.failures > 0 ? { retryAtMs: state.retryAtMs } : {}),
    ...(state.lastRun ? { lastRun: state.lastRun } : {}),
    ...(state.lastSuccess ? { lastSuccess: state.lastSuccess } : {}),
    ...(state.skipped ? { skipped: state.skipped } : {}),
  };
  try {
    await store.writeOwnStatus(state.id, JSON.stringify(saved));
    if (record !== undefined && state.task !== undefined)
      await store.writeKairosStatus(state.id, kairosStatusJson(record, nextDueMs(state, delayMs), hostname()));
  } catch (error) {
    // The run itself is recorded by its claim; a status that could not be written is written with the next run.
    log.warn({ err: error, task: state.id }, 'the status of a roll-up task could not be written');
  }
}
