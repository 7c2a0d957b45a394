/**
 * KairosDB's RollUpResource over the roll-up tasks shared with GraphQL: tasks as the JSON they are stored as, changes
 * answered with {id, name, attributes.url}, and each task's status in KairosDB's names with Kairograph's own beside it.
 */
import type { TaskStatus } from '../rollups/task-status.js';
import type { RollupTask } from '../rollups/rollup-task.js';
import { restErrorBody } from './rest-answers.js';
import { pathParam, readText, type Call, type Reply, type RestRoute } from './rest-endpoint.js';

/** Roll-up tasks change no points themselves: changing one needs `write`, as the points its runs write do. */
export const ROLLUP_ROUTES: readonly RestRoute[] = [
  { path: '/rollups', methods: { GET: [listRollupTasks, 'read'], POST: [createRollupTask, 'write'] } },
  { path: '/rollups/status/:id', methods: { GET: [rollupTaskStatus, 'read'] } },
  {
    path: '/rollups/:id',
    methods: { GET: [getRollupTask, 'read'], PUT: [updateRollupTask, 'write'], DELETE: [deleteRollupTask, 'write'] },
  },
];

const ROLLUPS_URL = '/api/v1/rollups/';

function rollupCreated(task: RollupTask): Reply {
  return {
    status: 200,
    body: JSON.stringify({ id: task.id, name: task.name, attributes: { url: `${ROLLUPS_URL}${task.id}` } }),
  };
}

function rollupNotFound(id: string, what = 'Resource'): Reply {
  return { status: 404, body: restErrorBody(`${what} not found for id ${id}`) };
}

async function listRollupTasks({ ctx, deps }: Call): Promise<Reply> {
  return { status: 200, body: `[${(await deps.rollups.list(ctx)).map((task) => task.json).join(',')}]` };
}

async function createRollupTask(call: Call): Promise<Reply> {
  return rollupCreated(await call.deps.rollups.create(call.ctx, await readText(call)));
}

async function getRollupTask(call: Call): Promise<Reply> {
  const id = pathParam(call, 'id');
  const stored = await call.deps.rollups.get(call.ctx, id);
  return stored === undefined ? rollupNotFound(id) : { status: 200, body: stored.json };
}

async function updateRollupTask(call: Call): Promise<Reply> {
  const id = pathParam(call, 'id');
  const task = await call.deps.rollups.update(call.ctx, id, await readText(call));
  return task === undefined ? rollupNotFound(id) : rollupCreated(task);
}

async function deleteRollupTask(call: Call): Promise<Reply> {
  const id = pathParam(call, 'id');
  return (await call.deps.rollups.delete(call.ctx, id)) ? { status: 204 } : rollupNotFound(id);
}

/**
 * KairosDB's status of the task's last run (`RollupTaskStatus`, in its REST names), and Kairograph's own under
 * `kairograph`: progress, pending periods, failures and the next retry, skipped periods, a claim another gateway holds.
 */
async function rollupTaskStatus(call: Call): Promise<Reply> {
  const { ctx, deps } = call;
  const id = pathParam(call, 'id');
  const stored = await deps.rollups.get(ctx, id);
  const kairos = parseKairosStatus(await deps.rollups.kairosStatus(ctx, id));
  if (stored === undefined)
    return kairos === undefined ? rollupNotFound(id, 'Status') : { status: 200, body: JSON.stringify(kairos) };
  const own = await deps.rollups.status(ctx, stored);
  // Which gateway ran or holds a task names a host and a process: the operators' (the admin scope), as in GraphQL.
  const status = restStatusOf(own, ctx.principal.scopes.has('admin'));
  return {
    status: 200,
    body: JSON.stringify({
      ...(kairos ?? { statuses: [], executing_host: '', next_scheduled: 'Never' }),
      kairograph: status,
    }),
  };
}

/** KairosDB's stored status (plain Gson, Java names) in the names its REST API answers with (snake_case). */
function parseKairosStatus(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    return snakeCase(JSON.parse(text)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function snakeCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCase);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeCase(v)]),
  );
}

function restStatusOf(status: TaskStatus, showGateways: boolean): Record<string, unknown> {
  const run = (r: NonNullable<TaskStatus['lastRun']>) => ({
    period_start: r.periodStartMs,
    period_end: r.periodEndMs,
    started: r.startedMs,
    finished: r.finishedMs,
    duration_ms: Math.round(r.durationMs),
    points_written: r.pointsWritten,
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(showGateways ? { gateway: r.owner } : {}),
  });
  return {
    ...(status.error !== undefined ? { error: status.error } : {}),
    ...(status.completedThroughMs !== undefined ? { completed_through: status.completedThroughMs } : {}),
    pending_periods: status.pendingPeriods,
    failures: status.failures,
    ...(status.retryAtMs !== undefined ? { retry_at: status.retryAtMs } : {}),
    ...(status.lastRun ? { last_run: run(status.lastRun) } : {}),
    ...(status.lastSuccess ? { last_success: run(status.lastSuccess) } : {}),
    ...(status.skipped
      ? { skipped: { from: status.skipped.fromMs, to: status.skipped.toMs, periods: status.skipped.periods } }
      : {}),
    ...(status.heldBy && showGateways
      ? { held_by: { gateway: status.heldBy.owner, until: status.heldBy.untilMs } }
      : {}),
  };
}
