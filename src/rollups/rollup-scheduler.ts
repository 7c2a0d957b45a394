/**
 * The scheduler's loop: a timer that reads the tasks from service_index every ROLLUPS_POLL_MS (and at once when this
 * gateway changed one), advances every task with a due period (period-claims.ts), and sleeps until the next period is
 * due, a retry is, or the next poll. One pass runs at a time. What a task's status says is task-status.ts's; the loop
 * keeps the state of each task it knows.
 */
import type { RequestScopes } from '../app/request-scope.js';
import type { Logger } from '../lib/log.js';
import { advanceTask, type ClaimDeps } from './period-claims.js';
import { periodAt, sameDuration } from './periods.js';
import type { RollupSettings } from './rollup-settings.js';
import {
  newTaskState,
  nextDueMs,
  projectStatus,
  recordFailure,
  restoreStatus,
  type TaskCounters,
  type TaskState,
  type TaskStatus,
} from './task-status.js';
import type { RollupTaskStore, StoredTask } from './task-store.js';

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

export interface SchedulerDeps {
  /** The primary source's tasks; undefined when its layout keeps no service_index (nothing then runs). */
  readonly store: RollupTaskStore | undefined;
  /** Opens the scope each run's queries go through (its budgets, time limit and the shared reads). */
  readonly scopes: RequestScopes;
  readonly log: Logger;
  readonly clock: Clock;
  /** Names this scheduler in claims and statuses. */
  readonly owner: string;
  readonly settings: Pick<RollupSettings, 'pollMs' | 'maxCatchUpPeriods' | 'leaseMs' | 'delayMs'>;
}

export class RollupScheduler {
  private readonly states = new Map<string, TaskState>();
  private readonly claims: ClaimDeps | undefined;
  private loadedMs = Number.NEGATIVE_INFINITY;
  private running: Promise<void> | undefined;
  private again = false;
  private cancelTimer: (() => void) | undefined;
  private stopped = true;
  /** Set by stop(): a run under way finishes its period and starts no other. */
  private halting = false;

  constructor(private readonly deps: SchedulerDeps) {
    const { store, scopes, log, clock, owner, settings } = deps;
    this.claims =
      store === undefined
        ? undefined
        : { store, scopes, log, owner, settings, now: () => clock.now(), halting: () => this.halting };
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

  /** The task's status when this scheduler knows the task. */
  status(id: string): TaskStatus | undefined {
    const state = this.states.get(id);
    return state === undefined ? undefined : this.statusOf(state);
  }

  counters(): ReadonlyMap<string, TaskCounters> {
    return new Map([...this.states].map(([id, state]) => [id, state.counters]));
  }

  private statusOf(state: TaskState): TaskStatus {
    return projectStatus(state, this.deps.settings.delayMs, this.deps.clock.now());
  }

  private wake(ms: number): void {
    this.cancelTimer?.();
    this.cancelTimer = this.deps.clock.setTimeout(
      () => {
        this.cancelTimer = undefined;
        this.tick()
          .catch((error: unknown) =>
            this.deps.log.error({ err: error }, 'roll-up scheduling failed; it is tried again at the next poll'),
          )
          .finally(() => {
            if (!this.stopped) this.wake(this.nextWakeMs() - this.deps.clock.now());
          });
      },
      Math.max(0, ms),
    );
  }

  private nextWakeMs(): number {
    let wake = this.loadedMs + this.deps.settings.pollMs;
    for (const state of this.states.values()) {
      const due = nextDueMs(state, this.deps.settings.delayMs);
      if (due !== undefined) wake = Math.min(wake, due);
    }
    return wake;
  }

  private async runDue(): Promise<void> {
    const { store, clock, settings, log } = this.deps;
    if (store === undefined || this.claims === undefined) {
      this.loadedMs = clock.now();
      return;
    }
    if (clock.now() - this.loadedMs >= settings.pollMs) await this.load(store);
    for (const state of this.states.values()) {
      if (this.halting) break;
      if (state.task === undefined) continue;
      try {
        await advanceTask(this.claims, state, state.task);
      } catch (error) {
        // The store failed a claim or a read (Cassandra unreachable): the period waits, and is tried again with backoff.
        recordFailure(state, clock.now());
        log.warn(
          { err: error, task: state.id, failures: state.failures },
          'a roll-up task could not be advanced; it is tried again',
        );
      }
    }
  }

  /** Reads every task, keeping the state of those already known (and the progress recorded for new ones). */
  private async load(store: RollupTaskStore): Promise<void> {
    // Set first: a store that cannot be read is tried again at the next poll, not at once.
    this.loadedMs = this.deps.clock.now();
    const stored = await store.list();
    const seen = new Set<string>();
    for (const entry of stored) {
      seen.add(entry.id);
      let state = this.states.get(entry.id);
      if (state === undefined) {
        state = newTaskState(entry.id, entry.json);
        this.states.set(entry.id, state);
        if (!(await restoreStatus(state, store)))
          this.deps.log.warn(
            { task: state.id },
            "a roll-up task's recorded progress does not parse; it starts from the latest complete period",
          );
      }
      this.apply(state, entry);
    }
    for (const id of [...this.states.keys()]) if (!seen.has(id)) this.states.delete(id);
  }

  /** A task as read again: a change of its query or its interval changes what its progress means. */
  private apply(state: TaskState, entry: StoredTask): void {
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
}
