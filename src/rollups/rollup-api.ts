/**
 * What both front ends do with roll-up tasks (KairosDB's `RollUpResource`, GraphQL's `rollups` and its mutations):
 * list, read, create, update, delete and status, on the primary source's service_index, through one request context.
 * A change is applied to this gateway's scheduler at once; other gateways read it at their next poll.
 */
import { KairographError, RateLimitedError } from '../model/errors.js';
import type { RequestContext } from '../app/request-scope.js';
import { taskStatus, taskStoreOf, type TaskStatus } from './rollup-scheduler.js';
import { parseRollupTask, type RollupTask } from './rollup-task.js';
import { CONFIG_KEY, ROLLUPS_SERVICE, type RollupTaskStore, type StoredTask } from './task-store.js';

export type { StoredTask, TaskStatus };

export async function listRollups(ctx: RequestContext): Promise<StoredTask[]> {
  return storeOf(ctx).list();
}

export async function getRollup(ctx: RequestContext, id: string): Promise<StoredTask | undefined> {
  return storeOf(ctx).get(id);
}

/**
 * Validates and stores a new task (its JSON may carry an id, as KairosDB lets it), owned by the request's client,
 * which may own at most QUOTA_ROLLUP_TASKS: a task runs queries for as long as it exists, so one client must not make
 * the gateway run an unbounded number of them.
 */
export async function createRollup(ctx: RequestContext, json: string): Promise<RollupTask> {
  const store = storeOf(ctx);
  const task = parseRollupTask(json, {
    limits: ctx.sources.primary.limits,
    nowMs: ctx.nowMs,
    minIntervalMs: ctx.config.rollupsMinIntervalMs,
  });
  const replaced = (await store.index.value(ROLLUPS_SERVICE, CONFIG_KEY, task.id)) !== undefined;
  const quota = ctx.config.quotaRollupTasks;
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
  ctx.rollups?.refresh();
  return task;
}

/** Replaces a task, keeping its id and its owner; undefined when there is no task of that id. */
export async function updateRollup(ctx: RequestContext, id: string, json: string): Promise<RollupTask | undefined> {
  const store = storeOf(ctx);
  if ((await store.index.value(ROLLUPS_SERVICE, CONFIG_KEY, id)) === undefined) return undefined;
  const task = parseRollupTask(json, {
    id,
    limits: ctx.sources.primary.limits,
    nowMs: ctx.nowMs,
    minIntervalMs: ctx.config.rollupsMinIntervalMs,
  });
  await store.put(task);
  ctx.rollups?.refresh();
  return task;
}

/** Removes a task and its statuses; false when there is no task of that id. */
export async function deleteRollup(ctx: RequestContext, id: string): Promise<boolean> {
  const store = storeOf(ctx);
  if ((await store.index.value(ROLLUPS_SERVICE, CONFIG_KEY, id)) === undefined) return false;
  await store.delete(id);
  ctx.rollups?.refresh();
  return true;
}

export async function rollupStatus(ctx: RequestContext, stored: StoredTask): Promise<TaskStatus> {
  return taskStatus(storeOf(ctx), stored, ctx.config.rollupsDelayMs, ctx.nowMs, ctx.rollups);
}

/** KairosDB's status row of a task (its last run as KairosDB's status store wrote it), when there is one. */
export async function kairosRollupStatus(ctx: RequestContext, id: string): Promise<string | undefined> {
  return storeOf(ctx).kairosStatus(id);
}

function storeOf(ctx: RequestContext): RollupTaskStore {
  const store = taskStoreOf(ctx.sources);
  if (store === undefined)
    throw new KairographError(
      'BAD_USER_INPUT',
      `roll-up tasks live in KairosDB's service_index, which the primary source "${ctx.sources.primary.name}" does not keep`,
    );
  return store;
}
