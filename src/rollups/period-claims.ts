/**
 * Claims: a task advanced period by period, each period claimed first through service_index's lightweight
 * transactions (`_kairograph_rollup_claims`/<task id>, one row per period), so it runs once across every gateway on
 * the store. A period someone completed is passed; one another gateway holds is looked at again once its lease may
 * have ended; one granted here is run (run-period.ts), then completed. A failed period blocks the periods after it,
 * so none is skipped unless catch-up after downtime passes ROLLUPS_MAX_CATCH_UP_PERIODS, which says so. Claims older
 * than catch-up ever goes back to are pruned.
 */
import type { ServiceIndex } from '../model/service-index.js';
import type { Duration } from '../model/time-units.js';
import { countDue, latestPeriods, nextPeriod, periodAt, periodKey, type Period } from './periods.js';
import type { RollupSettings } from './rollup-settings.js';
import type { RollupTask } from './rollup-task.js';
import { runPeriod, type RunDeps } from './run-period.js';
import { FIRST_RETRY_MS, persistStatus, recordFailure, type TaskState } from './task-status.js';
import { CLAIMS_SERVICE, type RollupTaskStore } from './task-store.js';

export interface ClaimDeps extends RunDeps {
  readonly store: RollupTaskStore;
  readonly settings: Pick<RollupSettings, 'pollMs' | 'maxCatchUpPeriods' | 'leaseMs' | 'delayMs'>;
  /** True once the scheduler is stopping: a run under way finishes its period and starts no other. */
  readonly halting: () => boolean;
}

/** How often a scheduler prunes a task's claims, and the most it deletes in one go. */
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_AT_MOST = 1000;

/** Runs the task's due periods in order until one fails, is held by another gateway, or none is due. */
export async function advanceTask(deps: ClaimDeps, state: TaskState, task: RollupTask): Promise<void> {
  const { settings, store } = deps;
  const interval = task.executionInterval;
  const now = deps.now();
  if (state.retryAtMs !== undefined && state.retryAtMs > now) return;
  // A new task starts with the latest period that is complete.
  if (state.cursorMs === undefined) {
    state.cursorMs = periodAt(periodAt(now - settings.delayMs, interval).startMs - 1, interval).startMs;
    state.coveredFromMs = state.cursorMs;
  }
  const due = countDue(state.cursorMs, interval, now - settings.delayMs, settings.maxCatchUpPeriods + 1);
  if (due > settings.maxCatchUpPeriods) await skipMissed(deps, state, task, now);
  await pruneClaims(deps, state, task, now);
  let period = periodAt(state.cursorMs, interval);
  while (!deps.halting()) {
    const at = deps.now();
    if (period.endMs + settings.delayMs > at) break;
    const key = claimKey(period, interval);
    const claim = await store.index.claim(CLAIMS_SERVICE, task.id, key, deps.owner, at, at + settings.leaseMs);
    if (claim.completed) {
      delete state.heldBy;
      state.cursorMs = period.endMs;
      period = nextPeriod(period, interval);
      continue;
    }
    if (!claim.granted) {
      // Another gateway runs it: look again once it may have finished, or its claim expired.
      state.heldBy = { owner: claim.owner, untilMs: claim.untilMs };
      state.retryAtMs = Math.min(claim.untilMs + 1, at + Math.min(settings.pollMs, FIRST_RETRY_MS));
      return;
    }
    delete state.heldBy;
    const record = await runPeriod(deps, task, period);
    state.lastRun = record;
    state.counters.runs++;
    if (record.error !== undefined) {
      recordFailure(state, deps.now());
      deps.log.warn(
        { task: task.id, name: task.name, period: record.periodStartMs, failures: state.failures, error: record.error },
        `roll-up task ${task.name} failed for the period from ${new Date(record.periodStartMs).toISOString()}; it is tried again`,
      );
      await persistStatus(state, store, settings.delayMs, deps.log, record);
      return;
    }
    if (!(await store.index.complete(CLAIMS_SERVICE, task.id, key, deps.owner, deps.now()))) {
      deps.log.warn(
        { task: task.id, period: period.startMs },
        'a roll-up run outlived its claim (ROLLUPS_LEASE_MS); another gateway may have run the period too',
      );
    }
    state.failures = 0;
    delete state.retryAtMs;
    state.lastSuccess = record;
    state.counters.pointsWritten += record.pointsWritten;
    state.cursorMs = period.endMs;
    await persistStatus(state, store, settings.delayMs, deps.log, record);
    period = nextPeriod(period, interval);
  }
}

/** Moves the cursor past the missed periods that catch-up does not reach, and records which they were. */
async function skipMissed(deps: ClaimDeps, state: TaskState, task: RollupTask, now: number): Promise<void> {
  const { settings } = deps;
  const interval = task.executionInterval;
  const keepFrom = latestPeriods(now - settings.delayMs, interval, settings.maxCatchUpPeriods);
  const skipped = {
    fromMs: state.cursorMs!,
    toMs: keepFrom,
    periods: countDue(state.cursorMs!, interval, keepFrom, Number.MAX_SAFE_INTEGER),
  };
  state.skipped = skipped;
  state.counters.periodsSkipped += skipped.periods;
  state.cursorMs = keepFrom;
  state.coveredFromMs = keepFrom;
  deps.log.warn(
    { task: task.id, name: task.name, skipped },
    `roll-up task ${task.name}: ${skipped.periods} missed periods are older than ROLLUPS_MAX_CATCH_UP_PERIODS=${settings.maxCatchUpPeriods} allows and are skipped`,
  );
  await persistStatus(state, deps.store, settings.delayMs, deps.log);
}

/**
 * Deletes the task's claims on periods older than catch-up ever goes back to (ROLLUPS_MAX_CATCH_UP_PERIODS before
 * the latest due one), hourly at most: no gateway with the same setting claims such a period again, so their rows,
 * one per period, would only grow the claims partition. Its failure costs nothing but the rows: it is logged.
 */
async function pruneClaims(deps: ClaimDeps, state: TaskState, task: RollupTask, now: number): Promise<void> {
  if (state.prunedAtMs !== undefined && now - state.prunedAtMs < PRUNE_EVERY_MS) return;
  state.prunedAtMs = now;
  const { settings } = deps;
  const beforeMs = latestPeriods(now - settings.delayMs, task.executionInterval, settings.maxCatchUpPeriods);
  try {
    const pruned = await deleteClaimsBefore(deps.store.index, task.id, beforeMs, PRUNE_AT_MOST);
    if (pruned > 0) deps.log.debug({ task: task.id, pruned, beforeMs }, 'pruned old roll-up claims');
  } catch (error) {
    deps.log.warn(
      { err: error, task: task.id },
      "could not prune a roll-up task's old claims; it is tried again in an hour",
    );
  }
}

/**
 * Deletes up to `atMost` of the task's claims on periods that start before `beforeMs`; returns how many. The claims
 * service is written only by claim and complete otherwise: these rows are past every gateway's catch-up.
 */
async function deleteClaimsBefore(index: ServiceIndex, id: string, beforeMs: number, atMost: number): Promise<number> {
  const old = (await index.keys(CLAIMS_SERVICE, id)).filter((key) => claimStartMs(key) < beforeMs).slice(0, atMost);
  for (const key of old) await index.delete(CLAIMS_SERVICE, id, key);
  return old.length;
}

/** A period's claim key: its start, then the interval, so a task whose interval changed never meets its old claims. */
function claimKey(period: Period, interval: Duration): string {
  return `${periodKey(period)} ${interval.value} ${interval.unit.toLowerCase()}`;
}

/** The start of the period a claim key names. */
function claimStartMs(key: string): number {
  const start = Number(key.split(' ', 1)[0]);
  return Number.isFinite(start) ? start : Number.POSITIVE_INFINITY;
}
