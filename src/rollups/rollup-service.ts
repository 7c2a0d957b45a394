/**
 * Roll-ups as one service, built once by the gateway and handed to both front ends (KairosDB's `RollUpResource`,
 * GraphQL's `rollups`, its mutations and `useRollups`): the tasks on the primary source's service_index (list, read,
 * create, update, delete, status) and the scheduler that runs them (start, stop, tick), with what /metrics reads of
 * it. A change made here reaches this gateway's scheduler at once; other gateways read it at their next poll.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RequestScope, RequestScopes } from '../app/request-scope.js';
import type { Logger } from '../lib/log.js';
import { KairographError, RateLimitedError } from '../model/errors.js';
import type { Sources } from '../sources/sources.js';
import type { RollupSettings } from './rollup-settings.js';
import { RollupScheduler, SYSTEM_CLOCK, type Clock } from './rollup-scheduler.js';
import { parseRollupTask, type RollupTask } from './rollup-task.js';
import { recordedStatus, type TaskCounters, type TaskStatus } from './task-status.js';
import { taskStoreOf, type RollupTaskStore, type StoredTask } from './task-store.js';

export interface RollupServiceDeps {
  /** The sources runs read and write through (the gateway's: writes invalidate its caches); tasks live in the primary. */
  readonly sources: Sources;
  /** Opens the scope each run's queries go through (its budgets, time limit and the shared reads). */
  readonly scopes: RequestScopes;
  readonly log: Logger;
  readonly settings: RollupSettings;
  readonly clock?: Clock;
  /** Names this gateway in claims and statuses; unique per process by default. */
  readonly owner?: string;
}

export class RollupService {
  /** This gateway, as claims and statuses name it. */
  readonly owner: string;
  readonly settings: RollupSettings;
  private readonly sources: Sources;
  private readonly clock: Clock;
  private readonly scheduler: RollupScheduler;

  constructor(deps: RollupServiceDeps) {
    this.sources = deps.sources;
    this.settings = deps.settings;
    this.clock = deps.clock ?? SYSTEM_CLOCK;
    this.owner = deps.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.scheduler = new RollupScheduler({
      store: taskStoreOf(deps.sources, () => this.clock.now()),
      scopes: deps.scopes,
      log: deps.log,
      clock: this.clock,
      owner: this.owner,
      settings: deps.settings,
    });
  }

  async list(ctx: RequestScope): Promise<StoredTask[]> {
    return this.storeAt(ctx).list();
  }

  async get(ctx: RequestScope, id: string): Promise<StoredTask | undefined> {
    return this.storeAt(ctx).get(id);
  }

  /**
   * Validates and stores a new task (its JSON may carry an id, as KairosDB lets it), owned by the request's client,
   * which may own at most QUOTA_ROLLUP_TASKS: a task runs queries for as long as it exists, so one client must not
   * make the gateway run an unbounded number of them.
   */
  async create(ctx: RequestScope, json: string): Promise<RollupTask> {
    const store = this.storeAt(ctx);
    const task = parseRollupTask(json, {
      limits: this.sources.primary.limits,
      nowMs: ctx.nowMs,
      minIntervalMs: this.settings.minIntervalMs,
    });
    const replaced = await store.exists(task.id);
    const quota = this.settings.maxTasksPerClient;
    if (!replaced && quota > 0) {
      const owned = await store.ownedBy(ctx.client);
      if (owned >= quota) {
        throw new RateLimitedError(
          `this client already owns ${owned} roll-up tasks, its QUOTA_ROLLUP_TASKS: delete one first`,
          { policy: 'rollup_tasks', limit: quota, remaining: 0, resetSeconds: 1 },
        );
      }
    }
    await store.put(task);
    if (!replaced) await store.setOwner(task.id, ctx.client);
    this.scheduler.refresh();
    return task;
  }

  /** Replaces a task, keeping its id and its owner; undefined when there is no task of that id. */
  async update(ctx: RequestScope, id: string, json: string): Promise<RollupTask | undefined> {
    const store = this.storeAt(ctx);
    if (!(await store.exists(id))) return undefined;
    const task = parseRollupTask(json, {
      id,
      limits: this.sources.primary.limits,
      nowMs: ctx.nowMs,
      minIntervalMs: this.settings.minIntervalMs,
    });
    await store.put(task);
    this.scheduler.refresh();
    return task;
  }

  /** Removes a task and its statuses; false when there is no task of that id. */
  async delete(ctx: RequestScope, id: string): Promise<boolean> {
    const store = this.storeAt(ctx);
    if (!(await store.exists(id))) return false;
    await store.delete(id);
    this.scheduler.refresh();
    return true;
  }

  /**
   * A task's status: this gateway's scheduler's when it runs the task, else what the gateway that ran it last recorded
   * in service_index (a gateway with ROLLUPS=off, or one that has not read the task yet).
   */
  async status(ctx: RequestScope, stored: StoredTask): Promise<TaskStatus> {
    const live = this.scheduler.status(stored.id);
    if (live !== undefined && live.error === stored.error) return live;
    return recordedStatus(this.storeAt(ctx), stored, this.settings.delayMs, ctx.nowMs);
  }

  /** KairosDB's status row of a task (its last run as KairosDB's status store wrote it), when there is one. */
  async kairosStatus(ctx: RequestScope, id: string): Promise<string | undefined> {
    return this.storeAt(ctx).kairosStatus(id);
  }

  /** Starts running tasks in this gateway (ROLLUPS=on): at once, then whenever a period is due or a poll is. */
  start(): void {
    this.scheduler.start();
  }

  /** Stops running tasks; resolves once a run under way has finished its period. */
  stop(): Promise<void> {
    return this.scheduler.stop();
  }

  /** Reads the tasks when due and runs every due period now; tests and benchmarks drive the scheduler with it. */
  tick(): Promise<void> {
    return this.scheduler.tick();
  }

  /** Resolves once no run is under way. */
  idle(): Promise<void> {
    return this.scheduler.idle();
  }

  /** The status of every task this gateway's scheduler knows: what /metrics shows. */
  statuses(): TaskStatus[] {
    return this.scheduler.statuses();
  }

  /** Per task, what this gateway's scheduler did since it started: what /metrics counts. */
  counters(): ReadonlyMap<string, TaskCounters> {
    return this.scheduler.counters();
  }

  /** The tasks, their relative times read at the request's "now". */
  private storeAt(ctx: RequestScope): RollupTaskStore {
    const store = taskStoreOf(this.sources, () => ctx.nowMs);
    if (store === undefined)
      throw new KairographError(
        'BAD_USER_INPUT',
        `roll-up tasks live in KairosDB's service_index, which the primary source "${this.sources.primary.name}" does not keep`,
      );
    return store;
  }
}
