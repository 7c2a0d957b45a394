/**
 * A task's status: the backoff of retries (written once, for failed runs and failed claims alike), the projection
 * REST, GraphQL and /metrics read, and the progress persisted in service_index, read back as it was written.
 */
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { embeddedKeyLimits } from '../store/embedded/keys.js';
import { kairosDate } from './kairos-status-json.js';
import { parseRollupTask } from './rollup-task.js';
import type { RunRecord } from './run-period.js';
import {
  newTaskState,
  nextDueMs,
  persistStatus,
  projectStatus,
  recordedStatus,
  recordFailure,
  restoreStatus,
} from './task-status.js';
import { RollupTaskStore } from './task-store.js';

const HOUR = 3_600_000;
const D0 = Date.UTC(2026, 0, 5);
const DELAY = 60_000;
const limits = embeddedKeyLimits(1978);
const log = pino({ level: 'silent' });
afterAll(removeTempDirs);

const task = parseRollupTask(
  JSON.stringify({
    id: 't',
    name: 'cpu hourly',
    execution_interval: { value: 1, unit: 'hours' },
    rollups: [
      {
        save_as: 'cpu.hourly',
        query: {
          start_relative: { value: 1, unit: 'hours' },
          metrics: [{ name: 'cpu', aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' } }] }],
        },
      },
    ],
  }),
  { limits, nowMs: D0 },
);

const run = (startMs: number, error?: string): RunRecord => ({
  periodStartMs: startMs,
  periodEndMs: startMs + HOUR,
  startedMs: startMs + HOUR + DELAY,
  finishedMs: startMs + HOUR + DELAY + 1000,
  durationMs: 1000,
  pointsWritten: error === undefined ? 2 : 0,
  ...(error !== undefined ? { error } : {}),
  owner: 'g1',
  queries: [{ metric: 'cpu', pointsWritten: error === undefined ? 2 : 0, durationMs: 1000 }],
});

describe('task status', () => {
  it('waits 5 s after a first failure, twice as long after each next one, 10 minutes at most', () => {
    const state = newTaskState('t', task.json);
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      recordFailure(state, D0);
      waits.push(state.retryAtMs! - D0);
    }
    expect(waits).toEqual([5000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000, 600_000, 600_000]);
    expect([state.failures, state.counters.failures]).toEqual([10, 10]);
  });

  it('counts the periods pending, and shows a retry only while the first of them failed', () => {
    const state = newTaskState('t', task.json);
    state.task = task;
    state.cursorMs = D0;
    state.coveredFromMs = D0 - HOUR;
    state.retryAtMs = D0 + 4 * HOUR;
    expect(projectStatus(state, DELAY, D0 + 3 * HOUR + DELAY)).toEqual({
      id: 't',
      name: 'cpu hourly',
      completedThroughMs: D0,
      coveredFromMs: D0 - HOUR,
      pendingPeriods: 3,
      failures: 0,
    });
    recordFailure(state, D0 + 3 * HOUR + DELAY);
    expect(projectStatus(state, DELAY, D0 + 3 * HOUR + DELAY)).toMatchObject({
      pendingPeriods: 3,
      failures: 1,
      retryAtMs: D0 + 3 * HOUR + DELAY + 5000,
    });
    // The next period is due once it ended and the delay passed, or at the retry when that is later.
    expect(nextDueMs(state, DELAY)).toBe(D0 + 3 * HOUR + DELAY + 5000);
    state.failures = 0;
    delete state.retryAtMs;
    expect(nextDueMs(state, DELAY)).toBe(D0 + HOUR + DELAY);
  });

  it('persists progress and the run in both status rows, and restores the same status on another gateway', async () => {
    const store = await EmbeddedStore.open({ path: tempDir() });
    try {
      const tasks = new RollupTaskStore(store.serviceIndex, () => ({ limits, nowMs: D0 }));
      await tasks.put(task);
      const state = newTaskState('t', task.json);
      state.task = task;
      state.cursorMs = D0 + HOUR;
      state.coveredFromMs = D0;
      state.lastRun = run(D0);
      state.lastSuccess = run(D0);
      state.skipped = { fromMs: D0 - 5 * HOUR, toMs: D0, periods: 5 };
      await persistStatus(state, tasks, DELAY, log, state.lastRun);

      const now = D0 + 3 * HOUR + DELAY;
      const stored = (await tasks.get('t'))!;
      expect(await recordedStatus(tasks, stored, DELAY, now)).toEqual(projectStatus(state, DELAY, now));
      expect(JSON.parse((await tasks.kairosStatus('t'))!)).toMatchObject({
        statuses: [{ metricName: 'cpu', dataPointCount: 2, lastExecutionTime: D0 + HOUR + DELAY + 1000 }],
        nextScheduled: kairosDate(D0 + 2 * HOUR + DELAY),
      });

      await tasks.writeOwnStatus('t', '{"cursorMs":');
      const fresh = newTaskState('t', task.json);
      expect(await restoreStatus(fresh, tasks)).toBe(false);
      expect(fresh.cursorMs).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
