/**
 * What both front ends do with roll-up tasks (KairosDB's `RollUpResource`, GraphQL's `rollups` and its mutations):
 * list, read, create, update, delete and status, on the primary source's service_index, in a request's scope. The
 * gateway builds one RollupTasks and hands it to the front ends; a change is applied to its scheduler at once, and
 * other gateways read it at their next poll.
 */
import type { RequestScope } from '../app/request-scope.js';
import { KairographError, RateLimitedError } from '../model/errors.js';
import { taskStatus, taskStoreOf, type RollupScheduler, type TaskStatus } from './rollup-scheduler.js';
import { parseRollupTask, type RollupTask } from './rollup-task.js';
import { CONFIG_KEY, ROLLUPS_SERVICE, type RollupTaskStore, type StoredTask } from './task-store.js';

export type { StoredTask, TaskStatus };

export interface RollupTasksSettings {
  /** ROLLUPS_DELAY_MS: how long after a period ends it is rolled up (a status says when the next is due). */
  readonly delayMs: number;
  /** ROLLUPS_MIN_INTERVAL_MS: the shortest execution interval of a task created or changed here. */
  readonly minIntervalMs: number;
  /** QUOTA_ROLLUP_TASKS: the most tasks one client may own; 0 for no bound. */
  readonly maxTasksPerClient: number;
}

export class RollupTasks {
  constructor(
    readonly settings: RollupTasksSettings,
    /** The gateway's scheduler, told at once of a change; absent where tasks are managed without one (tests). */
    private readonly scheduler?: RollupScheduler,
  ) {}

  async list(ctx: RequestScope): Promise<StoredTask[]> {
    return storeOf(ctx).list();
  }

  async get(ctx: RequestScope, id: string): Promise<StoredTask | undefined> {
    return storeOf(ctx).get(id);
  }

  /**
   * Validates and stores a new task (its JSON may carry an id, as KairosDB lets it), owned by the request's client,
   * which may own at most QUOTA_ROLLUP_TASKS: a task runs queries for as long as it exists, so one client must not
   * make the gateway run an unbounded number of them.
   */
  async create(ctx: RequestScope, json: string): Promise<RollupTask> {
    const store = storeOf(ctx);
    const task = parseRollupTask(json, {
      limits: ctx.sources.primary.limits,
      nowMs: ctx.nowMs,
      minIntervalMs: this.settings.minIntervalMs,
    });
    const replaced = (await store.index.value(ROLLUPS_SERVICE, CONFIG_KEY, task.id)) !== undefined;
    const quota = this.settings.maxTasksPerClient;
    if (!replaced && quota > 0) {
      const owned = await store.ownedBy(ctx.client);
      if (owned >= quota) {
        throw new RateLimitedError(
          `this client already owns ${owned} roll-up tasks, its QUOTA_ROLLUP_TASKS: delete one first`,
          {
            policy: 'rollup_tasks',
            limit: quota,
            remaining: 0,
            resetSeconds: 1,
          },
        );
      }
    }
    await store.put(task);
    if (!replaced) await store.setOwner(task.id, ctx.client);
    this.scheduler?.refresh();
    return task;
  }

  /** Replaces a task, keeping its id and its owner; undefined when there is no task of that id. */
  async update(ctx: RequestScope, id: string, json: string): Promise<RollupTask | undefined> {
    const store = storeOf(ctx);
    if ((await store.index.value(ROLLUPS_SERVICE, CONFIG_KEY, id)) === undefined) return undefined;
    const task = parseRollupTask(json, {
      id,
      limits: ctx.sources.primary.limits,
      nowMs: ctx.nowMs,
      minIntervalMs: this.settings.minIntervalMs,
    });
    await store.put(task);
    this.scheduler?.refresh();
    return task;
  }

  /** Removes a task and its statuses; false when there is no task of that id. */
  async delete(ctx: RequestScope, id: string): Promise<boolean> {
    const store = storeOf(ctx);
    if ((await store.index.value(ROLLUPS_SERVICE, CONFIG_KEY, id)) === undefined) return false;
    await store.delete(id);
    this.scheduler?.refresh();
    return true;
  }

  async status(ctx: RequestScope, stored: StoredTask): Promise<TaskStatus> {
    return taskStatus(storeOf(ctx), stored, this.settings.delayMs, ctx.nowMs, this.scheduler);
  }

  /** KairosDB's status row of a task (its last run as KairosDB's status store wrote it), when there is one. */
  async kairosStatus(ctx: RequestScope, id: string): Promise<string | undefined> {
    return storeOf(ctx).kairosStatus(id);
  }
}

function storeOf(ctx: RequestScope): RollupTaskStore {
  const store = taskStoreOf(ctx.sources);
  if (store === undefined)
    throw new KairographError(
      'BAD_USER_INPUT',
      `roll-up tasks live in KairosDB's service_index, which the primary source "${ctx.sources.primary.name}" does not keep`,
    );
  return store;
}
