/**
 * One run: one period of one task, each query of each roll-up over the period as a request of its own through the app
 * layer's request scope (its budgets, time limit and the shared reads), with `save_as` writing to the source as any
 * REST query with save_as does. What the run did comes back as a RunRecord; it claims and records nothing itself.
 */
import type { RequestScopes } from '../app/request-scope.js';
import type { Logger } from '../lib/log.js';
import { KairographError } from '../model/errors.js';
import type { MetricQuery } from '../model/query.js';
import { firstBucketStart, type Period } from './periods.js';
import type { RollupTask } from './rollup-task.js';

/** One run of a task over one period. */
export interface RunRecord {
  readonly periodStartMs: number;
  readonly periodEndMs: number;
  /** When the run started and finished, on the scheduler's clock. */
  readonly startedMs: number;
  readonly finishedMs: number;
  readonly durationMs: number;
  readonly pointsWritten: number;
  /** Why the run failed; absent for a run that succeeded. */
  readonly error?: string;
  /** The gateway that ran it. */
  readonly owner: string;
  /** Per query of the task, as KairosDB's status lists them. */
  readonly queries: readonly {
    readonly metric: string;
    readonly pointsWritten: number;
    readonly durationMs: number;
    readonly error?: string;
  }[];
}

export interface RunDeps {
  readonly scopes: RequestScopes;
  readonly log: Logger;
  /** The scheduler's clock: a run's queries take their "now" from it. */
  readonly now: () => number;
  /** The gateway the run is recorded as. */
  readonly owner: string;
}

/** Runs the task's queries over the period in order, stopping at the first that fails. */
export async function runPeriod(deps: RunDeps, task: RollupTask, period: Period): Promise<RunRecord> {
  const startedMs = deps.now();
  const started = performance.now();
  const queries: RunRecord['queries'][number][] = [];
  let error: string | undefined;
  outer: for (const [i, rollup] of task.rollups.entries()) {
    for (const [j, given] of rollup.queries.entries()) {
      const queryStarted = performance.now();
      const ctx = deps.scopes.open({ requestId: `rollup-${task.id}-${period.startMs}`, nowMs: deps.now() });
      try {
        const query: MetricQuery = {
          ...given,
          range: { startMs: firstBucketStart(given, period), endMs: period.endMs - 1 },
        };
        const output = await ctx.runQuery(query, `rollups[${i}].query.metric[${j}]`);
        const points = output.groups.reduce((sum, group) => sum + group.points.length, 0);
        queries.push({ metric: given.metric, pointsWritten: points, durationMs: performance.now() - queryStarted });
      } catch (failure) {
        error = failure instanceof Error ? failure.message : String(failure);
        // A KairographError is the task's own (a budget, a store outage): its message says it all.
        if (!(failure instanceof KairographError))
          deps.log.error({ err: failure, task: task.id }, 'a roll-up run failed unexpectedly');
        queries.push({ metric: given.metric, pointsWritten: 0, durationMs: performance.now() - queryStarted, error });
        break outer;
      } finally {
        ctx.dispose();
      }
    }
  }
  return {
    periodStartMs: period.startMs,
    periodEndMs: period.endMs,
    startedMs,
    finishedMs: deps.now(),
    durationMs: performance.now() - started,
    pointsWritten: queries.reduce((sum, q) => sum + q.pointsWritten, 0),
    ...(error !== undefined ? { error } : {}),
    owner: deps.owner,
    queries,
  };
}
