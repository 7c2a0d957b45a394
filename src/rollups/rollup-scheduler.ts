/**
 * Runs roll-up tasks inside the gateway: each task's periods (periods.ts) in order, each period once across every
 * gateway on the store (a claim per task and period in service_index), each run a normal query of the task through
 * the engine with `save_as` writing to the source, as any REST query with save_as does. Every run is recorded (the
 * task's status, KairosDB's status row, /metrics); a failed period is retried with backoff and blocks the periods
 * after it, so none is skipped unless catch-up after downtime passes ROLLUPS_MAX_CATCH_UP_PERIODS, which says so.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { SharedReads } from '../sharing/shared-reads.js';
import type { Config } from '../gateway/config.js';
import { compileAggregators } from '../engine/aggregators/registry.js';
import { compileGroupBys } from '../engine/group-by/registry.js';
import { readZone } from '../engine/params.js';
import { fixedLengthMs, plusUnits, type Duration } from '../model/time-units.js';
import { KairographError } from '../model/errors.js';
import type { Logger } from '../lib/log.js';
import type { MetricQuery } from '../model/query.js';
import { createRequestContext } from '../app/request-scope.js';
import type { ServiceIndex } from '../sources/capabilities.js';
import type { Sources } from '../sources/sources.js';
import { nextPeriod, periodAt, periodKey, type Period } from './periods.js';
import type { RollupTask } from './rollup-task.js';
import { CLAIMS_SERVICE, RollupTaskStore, type StoredTask } from './task-store.js';

/** Time as the scheduler sees it: the wall clock in the gateway, a fake one in tests. */
export interface Clock {
  now(): number;
  /** Runs `run` after `ms`; the returned function cancels it. */
  setTimeout(run: () => void, ms: number): () => void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout(run, ms) {
    const timer = setTimeout(run, ms);
    // A scheduled roll-up never keeps a process alive that is otherwise done.
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface SchedulerSettings {
  /** How often tasks are read again from service_index (tasks other gateways or KairosDB changed). */
  readonly pollMs: number;
  /** Most periods one task catches up after downtime; older missed periods are skipped, and the status says which. */
  readonly maxCatchUpPeriods: number;
  /** How long a claim on a period lasts: a gateway that dies holding one leaves it to another after this. */
  readonly leaseMs: number;
  /** How long after a period ends it is rolled up, so points that arrive a little late are in it. */
  readonly delayMs: number;
}

export interface SchedulerDeps {
  /** The sources runs read and write through (the gateway's: writes invalidate its caches). */
  readonly sources: Sources;
  readonly config: Config;
  readonly log: Logger;
  /** The gateway's shared reads, whose sources `sources` are. */
  readonly shared?: SharedReads;
  readonly clock?: Clock;
  /** Names this scheduler in claims and statuses; unique per process by default. */
  readonly owner?: string;
  readonly settings: SchedulerSettings;
}

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

interface TaskState {
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

const FIRST_RETRY_MS = 5000;
/** How often a scheduler prunes a task's claims, and the most it deletes in one go. */
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_AT_MOST = 1000;
const MAX_RETRY_MS = 600_000;

export class RollupScheduler {
  readonly owner: string;
  private readonly clock: Clock;
  private readonly states = new Map<string, TaskState>();
  private loadedMs = Number.NEGATIVE_INFINITY;
  private running: Promise<void> | undefined;
  private again = false;
  private cancelTimer: (() => void) | undefined;
  private stopped = true;
  /** Set by stop(): a run under way finishes its period and starts no other. */
  private halting = false;

  constructor(private readonly deps: SchedulerDeps) {
    this.clock = deps.clock ?? SYSTEM_CLOCK;
    this.owner = deps.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  /** The primary source's tasks (the REST API's and the scheduler's: KairosDB's API names no source). */
  get store(): RollupTaskStore | undefined {
    return taskStoreOf(this.deps.sources, this.clock);
  }

  /** Starts running tasks: at once, then whenever a period is due or tasks are to be read again. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.halting = false;
    this.wake(0);
  }

  /** Stops scheduling; resolves once a run under way has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.halting = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    await this.running;
  }

  /** Tasks changed through this gateway: read them again at once, not at the next poll. */
  refresh(): void {
    this.loadedMs = Number.NEGATIVE_INFINITY;
    if (!this.stopped) this.wake(0);
  }

  /**
   * Reads the tasks when due, then runs every due period of every task, in order; resolves when done. Runs one at a
   * time: a tick asked for while one runs runs once after it.
   */
  tick(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    const run = (async () => {
      try {
        do {
          this.again = false;
          await this.runDue();
        } while (this.again && !this.halting);
      } finally {
        this.running = undefined;
      }
    })();
    this.running = run;
    return run;
  }

  /** Resolves once no run is under way. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  statuses(): TaskStatus[] {
    return [...this.states.values()].map((state) => this.statusOf(state));
  }

  status(id: string): TaskStatus | undefined {
    const state = this.states.get(id);
    return state === undefined ? undefined : this.statusOf(state);
  }

  counters(): ReadonlyMap<string, TaskCounters> {
    return new Map([...this.states].map(([id, state]) => [id, state.counters]));
  }

  private wake(ms: number): void {
    this.cancelTimer?.();
    this.cancelTimer = this.clock.setTimeout(
      () => {
        this.cancelTimer = undefined;
        this.tick()
          .catch((error: unknown) =>
            this.deps.log.error({ err: error }, 'roll-up scheduling failed; it is tried again at the next poll'),
          )
          .finally(() => {
            if (!this.stopped) this.wake(this.nextWakeMs() - this.clock.now());
          });
      },
      Math.max(0, ms),
    );
  }

  private async runDue(): Promise<void> {
    const store = this.store;
    if (store === undefined) {
      this.loadedMs = this.clock.now();
      return;
    }
    if (this.clock.now() - this.loadedMs >= this.deps.settings.pollMs) await this.load(store);
    for (const state of this.states.values()) {
      if (this.halting) break;
      if (state.task === undefined) continue;
      try {
        await this.advance(state, state.task, store);
      } catch (error) {
        // The store failed a claim or a read (Cassandra unreachable): the period waits, and is tried again with backoff.
        state.failures++;
        state.counters.failures++;
        state.retryAtMs = this.clock.now() + Math.min(FIRST_RETRY_MS * 2 ** (state.failures - 1), MAX_RETRY_MS);
        this.deps.log.warn(
          { err: error, task: state.id, failures: state.failures },
          'a roll-up task could not be advanced; it is tried again',
        );
      }
    }
  }

  /** Reads every task, keeping the state of those already known (and the progress recorded for new ones). */
  private async load(store: RollupTaskStore): Promise<void> {
    // Set first: a store that cannot be read is tried again at the next poll, not at once.
    this.loadedMs = this.clock.now();
    const stored = await store.list();
    const seen = new Set<string>();
    for (const entry of stored) {
      seen.add(entry.id);
      let state = this.states.get(entry.id);
      if (state === undefined) {
        state = {
          id: entry.id,
          json: entry.json,
          failures: 0,
          counters: { runs: 0, failures: 0, pointsWritten: 0, periodsSkipped: 0 },
        };
        this.states.set(entry.id, state);
        await this.restore(state, store);
      }
      if (entry.task === undefined) {
        if (state.error !== entry.error)
          this.deps.log.error(
            { task: entry.id, error: entry.error },
            'a roll-up task cannot run: its JSON does not parse here',
          );
        state.task = undefined;
        state.error = entry.error;
      } else {
        const interval = state.task?.executionInterval;
        // Another query writes other points: what the roll-up holds from before is no longer its answer.
        if (state.task !== undefined && state.json !== entry.json && state.cursorMs !== undefined)
          state.coveredFromMs = state.cursorMs;
        state.task = entry.task;
        delete state.error;
        // A changed interval cuts time differently: go on from the new period that holds the old cursor.
        if (
          state.cursorMs !== undefined &&
          interval !== undefined &&
          !sameDuration(interval, entry.task.executionInterval)
        ) {
          state.cursorMs = periodAt(state.cursorMs, entry.task.executionInterval).startMs;
          state.coveredFromMs = state.cursorMs;
        }
      }
      state.json = entry.json;
    }
    for (const id of [...this.states.keys()]) if (!seen.has(id)) this.states.delete(id);
  }

  private async restore(state: TaskState, store: RollupTaskStore): Promise<void> {
    if (!(await restoreInto(state, store)))
      this.deps.log.warn(
        { task: state.id },
        "a roll-up task's recorded progress does not parse; it starts from the latest complete period",
      );
  }

  /** Runs the task's due periods in order until one fails, is held by another gateway, or none is due. */
  private async advance(state: TaskState, task: RollupTask, store: RollupTaskStore): Promise<void> {
    const { settings } = this.deps;
    const interval = task.executionInterval;
    const now = this.clock.now();
    if (state.retryAtMs !== undefined && state.retryAtMs > now) return;
    // A new task starts with the latest period that is complete.
    if (state.cursorMs === undefined) {
      state.cursorMs = periodAt(periodAt(now - settings.delayMs, interval).startMs - 1, interval).startMs;
      state.coveredFromMs = state.cursorMs;
    }
    const due = countDue(state.cursorMs, interval, now - settings.delayMs, settings.maxCatchUpPeriods + 1);
    if (due > settings.maxCatchUpPeriods) {
      const keepFrom = latestPeriods(now - settings.delayMs, interval, settings.maxCatchUpPeriods);
      const skipped = {
        fromMs: state.cursorMs,
        toMs: keepFrom,
        periods: countDue(state.cursorMs, interval, keepFrom, Number.MAX_SAFE_INTEGER),
      };
      state.skipped = skipped;
      state.counters.periodsSkipped += skipped.periods;
      state.cursorMs = keepFrom;
      state.coveredFromMs = keepFrom;
      this.deps.log.warn(
        { task: task.id, name: task.name, skipped },
        `roll-up task ${task.name}: ${skipped.periods} missed periods are older than ROLLUPS_MAX_CATCH_UP_PERIODS=${settings.maxCatchUpPeriods} allows and are skipped`,
      );
      await this.persist(state, store);
    }
    await this.pruneClaims(state, task, store, now);
    let period = periodAt(state.cursorMs, interval);
    while (!this.halting) {
      const at = this.clock.now();
      if (period.endMs + settings.delayMs > at) break;
      const key = claimKey(period, interval);
      const claim = await store.index.claim(CLAIMS_SERVICE, task.id, key, this.owner, at, at + settings.leaseMs);
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
      const record = await this.run(task, period);
      state.lastRun = record;
      state.counters.runs++;
      if (record.error !== undefined) {
        state.failures++;
        state.counters.failures++;
        state.retryAtMs = this.clock.now() + Math.min(FIRST_RETRY_MS * 2 ** (state.failures - 1), MAX_RETRY_MS);
        this.deps.log.warn(
          {
            task: task.id,
            name: task.name,
            period: record.periodStartMs,
            failures: state.failures,
            error: record.error,
          },
          `roll-up task ${task.name} failed for the period from ${new Date(record.periodStartMs).toISOString()}; it is tried again`,
        );
        await this.persist(state, store, record);
        return;
      }
      if (!(await store.index.complete(CLAIMS_SERVICE, task.id, key, this.owner, this.clock.now()))) {
        this.deps.log.warn(
          { task: task.id, period: period.startMs },
          'a roll-up run outlived its claim (ROLLUPS_LEASE_MS); another gateway may have run the period too',
        );
      }
      state.failures = 0;
      delete state.retryAtMs;
      state.lastSuccess = record;
      state.counters.pointsWritten += record.pointsWritten;
      state.cursorMs = period.endMs;
      await this.persist(state, store, record);
      period = nextPeriod(period, interval);
    }
  }

  /**
   * Deletes the task's claims on periods older than catch-up ever goes back to (ROLLUPS_MAX_CATCH_UP_PERIODS before
   * the latest due one), hourly at most: no gateway with the same setting claims such a period again, so their rows,
   * one per period, would only grow the claims partition. Its failure costs nothing but the rows: it is logged.
   */
  private async pruneClaims(state: TaskState, task: RollupTask, store: RollupTaskStore, now: number): Promise<void> {
    if (state.prunedAtMs !== undefined && now - state.prunedAtMs < PRUNE_EVERY_MS) return;
    state.prunedAtMs = now;
    const { settings } = this.deps;
    const beforeMs = latestPeriods(now - settings.delayMs, task.executionInterval, settings.maxCatchUpPeriods);
    try {
      const pruned = await store.pruneClaims(task.id, beforeMs, PRUNE_AT_MOST);
      if (pruned > 0) this.deps.log.debug({ task: task.id, pruned, beforeMs }, 'pruned old roll-up claims');
    } catch (error) {
      this.deps.log.warn(
        { err: error, task: task.id },
        "could not prune a roll-up task's old claims; it is tried again in an hour",
      );
    }
  }

  /** One period of a task: each query of each roll-up over the period, as a request of its own. */
  private async run(task: RollupTask, period: Period): Promise<RunRecord> {
    const startedMs = this.clock.now();
    const started = performance.now();
    const queries: RunRecord['queries'][number][] = [];
    let error: string | undefined;
    outer: for (const [i, rollup] of task.rollups.entries()) {
      for (const [j, given] of rollup.queries.entries()) {
        const queryStarted = performance.now();
        const ctx = createRequestContext(this.deps.sources, this.deps.config, this.deps.log, {
          requestId: `rollup-${task.id}-${period.startMs}`,
          nowMs: this.clock.now(),
          ...(this.deps.shared ? { shared: this.deps.shared } : {}),
        });
        try {
          const query: MetricQuery = {
            ...given,
            range: { startMs: firstBucketStart(given, period), endMs: period.endMs - 1 },
          };
          const output = await ctx.runQuery(query, `rollups[${i}].query.metric[${j}]`);
          const points = output.groups.reduce((sum, group) => sum + group.points.length, 0);
          queries.push({ metric: given.metric, pointsWritten: points, durationMs: performance.now() - queryStarted });
        } catch (failure) {
          error =
            failure instanceof KairographError
              ? failure.message
              : failure instanceof Error
                ? failure.message
                : String(failure);
          if (!(failure instanceof KairographError))
            this.deps.log.error({ err: failure, task: task.id }, 'a roll-up run failed unexpectedly');
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
      finishedMs: this.clock.now(),
      durationMs: performance.now() - started,
      pointsWritten: queries.reduce((sum, q) => sum + q.pointsWritten, 0),
      ...(error !== undefined ? { error } : {}),
      owner: this.owner,
      queries,
    };
  }

  /** Records the task's progress (ours) and its last run in KairosDB's status row, so KairosDB's status API shows it too. */
  private async persist(state: TaskState, store: RollupTaskStore, record?: RunRecord): Promise<void> {
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
        await store.writeKairosStatus(state.id, kairosStatusJson(record, this.nextDueMs(state), hostname()));
    } catch (error) {
      // The run itself is recorded by its claim; a status that could not be written is written with the next run.
      this.deps.log.warn({ err: error, task: state.id }, 'the status of a roll-up task could not be written');
    }
  }

  private statusOf(state: TaskState): TaskStatus {
    return statusFrom(state, this.deps.settings.delayMs, this.clock.now());
  }

  /** When the task's next period is due (or its retry), on the scheduler's clock. */
  private nextDueMs(state: TaskState): number | undefined {
    if (state.task === undefined || state.cursorMs === undefined) return undefined;
    const due = periodAt(state.cursorMs, state.task.executionInterval).endMs + this.deps.settings.delayMs;
    return state.retryAtMs !== undefined ? Math.max(due, state.retryAtMs) : due;
  }

  private nextWakeMs(): number {
    let wake = this.loadedMs + this.deps.settings.pollMs;
    for (const state of this.states.values()) {
      const due = this.nextDueMs(state);
      if (due !== undefined) wake = Math.min(wake, due);
    }
    return wake;
  }
}

/**
 * A task's status: this gateway's scheduler's when it runs the task, else what the gateway that ran it last recorded
 * in service_index (a gateway with ROLLUPS=off, or one that has not read the task yet).
 */
export async function taskStatus(
  store: RollupTaskStore,
  stored: StoredTask,
  delayMs: number,
  nowMs: number,
  scheduler?: RollupScheduler,
): Promise<TaskStatus> {
  const live = scheduler?.status(stored.id);
  if (live !== undefined && live.error === stored.error) return live;
  const state: TaskState = {
    id: stored.id,
    json: stored.json,
    failures: 0,
    counters: { runs: 0, failures: 0, pointsWritten: 0, periodsSkipped: 0 },
  };
  if (stored.task !== undefined) state.task = stored.task;
  else state.error = stored.error;
  await restoreInto(state, store);
  return statusFrom(state, delayMs, nowMs);
}

/** Reads a task's recorded progress into its state; false when what is recorded does not parse. */
async function restoreInto(state: TaskState, store: RollupTaskStore): Promise<boolean> {
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

function statusFrom(state: TaskState, delayMs: number, nowMs: number): TaskStatus {
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

/** The primary source's roll-up tasks, or undefined when its layout keeps no service_index. */
export function taskStoreOf(sources: Sources, clock: Clock = SYSTEM_CLOCK): RollupTaskStore | undefined {
  const source = sources.primary;
  const index: ServiceIndex | undefined = source.capabilities.metadata?.index;
  if (index === undefined) return undefined;
  return new RollupTaskStore(index, () => ({ limits: source.limits, nowMs: clock.now() }));
}

/** A period's claim key: its start, then the interval, so a task whose interval changed never meets its old claims. */
export function claimKey(period: Period, interval: Duration): string {
  return `${periodKey(period)} ${interval.value} ${interval.unit.toLowerCase()}`;
}

/**
 * Where a period's query starts: the start of the range bucket that holds the period's start, for each range
 * aggregator of the query, so a sampling longer than the interval re-computes its open bucket whole (its point is
 * written again, more complete). The period's own start for samplings that divide it.
 */
export function firstBucketStart(query: MetricQuery, period: Period): number {
  const zone = readZone(query.timeZone, 'time_zone');
  const groupBys = compileGroupBys(query.groupBy, period.startMs);
  const compiled = compileAggregators(query.aggregators, {
    metric: query.metric,
    startMs: period.startMs,
    endMs: period.endMs - 1,
    nowMs: period.endMs,
    zone,
    tagGroupBy: groupBys.tags ?? [],
    limits: {
      store: 'the roll-up planner',
      maxMetricBytes: Number.MAX_SAFE_INTEGER,
      maxRowKeyBytes: Number.MAX_SAFE_INTEGER,
    },
  });
  let start = period.startMs;
  for (const { stage } of compiled) {
    const range = stage.range;
    if (range === undefined) continue;
    const length = fixedLengthMs(range.sampling, range.zone);
    let bucket: number;
    if (length !== undefined) bucket = range.anchorMs + Math.floor((period.startMs - range.anchorMs) / length) * length;
    else {
      bucket = range.anchorMs;
      for (
        let next = plusUnits(bucket, range.sampling.unit, range.sampling.value, range.zone);
        next <= period.startMs;
        next = plusUnits(next, range.sampling.unit, range.sampling.value, range.zone)
      )
        bucket = next;
    }
    start = Math.min(start, bucket);
  }
  return start;
}

/** Periods from the one at `fromMs` that end at or before `untilMs`, counted up to `cap`. */
function countDue(fromMs: number, interval: Duration, untilMs: number, cap: number): number {
  const first = periodAt(fromMs, interval);
  if (first.endMs > untilMs) return 0;
  const length = first.endMs - first.startMs;
  if (interval.unit !== 'MONTHS' && interval.unit !== 'YEARS')
    return Math.min(cap, Math.floor((untilMs - first.startMs) / length));
  let count = 0;
  for (let period = first; period.endMs <= untilMs && count < cap; period = nextPeriod(period, interval)) count++;
  return count;
}

/** The start of the earliest of the latest `count` periods that end at or before `untilMs`. */
function latestPeriods(untilMs: number, interval: Duration, count: number): number {
  let start = periodAt(untilMs, interval).startMs;
  for (let i = 0; i < count; i++) start = periodAt(start - 1, interval).startMs;
  return start;
}

function sameDuration(a: Duration, b: Duration): boolean {
  return a.value === b.value && a.unit === b.unit;
}

/**
 * KairosDB's `RollupTaskStatus` as its status store writes it (plain Gson: Java field names, `errorMessage` only on
 * failure, times as `dd MMM yyyy KK:mm:ss a`; Kairograph writes them in UTC where KairosDB uses its JVM's zone).
 */
export function kairosStatusJson(record: RunRecord, nextMs: number | undefined, host: string): string {
  const { finishedMs } = record;
  return JSON.stringify({
    statuses: record.queries.map((query) => ({
      metricName: query.metric,
      lastExecuted: kairosDate(finishedMs),
      dataPointCount: query.pointsWritten,
      executionLength: Math.round(query.durationMs),
      ...(query.error !== undefined ? { errorMessage: query.error } : {}),
      lastExecutionTime: finishedMs,
    })),
    executingHost: host,
    nextScheduled: nextMs === undefined ? 'Never' : kairosDate(nextMs),
  });
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Java's SimpleDateFormat("dd MMM yyyy KK:mm:ss a"), in UTC: `24 Nov 2026 03:04:07 AM`. */
export function kairosDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  const hours = d.getUTCHours();
  return `${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(hours % 12)}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`;
}
