/**
 * The roll-up scheduler's loop on the embedded store with a fake clock (no real sleeps): three days of 10 s data rolled
 * up into hourly points equal to the `series` answer for the same query; periods run by the scheduler's own timer; a
 * gateway stopped for five intervals catching up in order; failures retried with backoff and never skipped; catch-up
 * bounded and said so; tasks changed elsewhere picked up at the next poll.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import {
  closeRollupStores,
  config,
  countingStore,
  createTask,
  D0,
  DAY,
  HOUR,
  log,
  rolled,
  SETTINGS,
  schedulerOn,
  storeWithData,
} from '../../test/support/rollup-fixtures.js';
import { removeTempDirs } from '../../test/support/temp-dir.js';
import { RequestScopes, scopeSettings } from '../app/request-scope.js';
import type { MetricQuery } from '../model/query.js';
import { KairosdbSource } from '../sources/kairosdb/kairosdb-source.js';
import { Sources } from '../sources/sources.js';
import type { Store } from '../store/store.js';
import { kairosDate } from './kairos-status-json.js';
import { taskStoreOf } from './task-store.js';

afterEach(closeRollupStores);
afterAll(removeTempDirs);

/** The answer of one query, by group: `host` and its points. */
async function answer(store: Store, query: MetricQuery) {
  const ctx = new RequestScopes({
    sources: new Sources(new KairosdbSource('kairosdb', store)),
    settings: scopeSettings(config),
    log,
  }).open();
  try {
    const output = await ctx.runQuery(query, 'q');
    return output.groups.map((group) => ({
      host: group.tags.host,
      points: [...group.points.timestamps].map((t, i) => [t, group.points.values[i]]),
    }));
  } finally {
    ctx.dispose();
  }
}

const byHost = (metric: string, aggregators: MetricQuery['aggregators'], tags: MetricQuery['tags']): MetricQuery => ({
  metric,
  range: { startMs: D0, endMs: D0 + 3 * DAY - 1 },
  tags,
  aggregators,
  groupBy: [{ name: 'tag', params: { tags: ['host'] } }],
  timeZone: 'UTC',
  order: 'asc',
  excludeTags: false,
});

describe('roll-up scheduler', () => {
  it('rolls three days of 10 s data into hourly points equal to the series answer for the same query', async () => {
    const clock = new FakeClock(D0);
    const data = await storeWithData();
    await createTask(data, clock);
    const scheduler = schedulerOn(data, clock, 'g1');
    // First seen just after D0: its first period is the hour before. Then three days pass in one step (catch-up).
    clock.t = D0 + SETTINGS.delayMs;
    await scheduler.tick();
    clock.t = D0 + 3 * DAY + SETTINGS.delayMs;
    await scheduler.tick();

    const status = scheduler.status('task-1')!;
    // The hour before D0 (the latest complete one when the task was first seen) and the 72 hours of data.
    expect(status).toMatchObject({
      name: 'cpu hourly',
      pendingPeriods: 0,
      failures: 0,
      completedThroughMs: D0 + 3 * DAY,
    });
    expect(scheduler.counters().get('task-1')).toEqual({
      runs: 73,
      failures: 0,
      pointsWritten: 2 * 72,
      periodsSkipped: 0,
    });
    expect(status.lastSuccess).toMatchObject({
      periodStartMs: D0 + 3 * DAY - HOUR,
      periodEndMs: D0 + 3 * DAY,
      pointsWritten: 2,
      owner: 'g1',
    });

    const raw = await answer(
      data,
      byHost(
        'cpu',
        [{ name: 'avg', params: { sampling: { value: 1, unit: 'hours' } } }],
        [{ tag: 'dc', in: ['east'] }],
      ),
    );
    const rolled = await answer(data, byHost('cpu.hourly', [], [{ tag: 'saved_from', in: ['cpu'] }]));
    expect(raw.map((g) => g.host)).toEqual([['a'], ['b']]);
    expect(raw[0]!.points).toHaveLength(72);
    expect(rolled).toEqual(raw);

    // KairosDB's status row, as its status store writes it.
    const kairos = JSON.parse(
      (await taskStoreOf(new Sources(new KairosdbSource('kairosdb', data)))!.kairosStatus('task-1'))!,
    );
    expect(kairos).toMatchObject({
      executingHost: expect.any(String),
      nextScheduled: kairosDate(D0 + 3 * DAY + HOUR + SETTINGS.delayMs),
    });
    expect(kairos.statuses).toEqual([
      {
        metricName: 'cpu',
        lastExecuted: kairosDate(clock.t),
        dataPointCount: 2,
        executionLength: expect.any(Number),
        lastExecutionTime: clock.t,
      },
    ]);
  });

  it('runs each period once its delay passed, by its own timer', async () => {
    const clock = new FakeClock(D0 + 3 * HOUR);
    const counted = countingStore(await storeWithData(1));
    await createTask(counted.store, clock);
    const scheduler = schedulerOn(counted.store, clock, 'g1');
    scheduler.start();
    const settle = async () => {
      await scheduler.idle();
      // The next timer is set once the tick's promise settled.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    // At the start 01:00-02:00 is the latest hour whose delay passed (02:00-03:00 is due a minute after 03:00).
    await clock.advanceTo(D0 + 3 * HOUR + 1, settle);
    expect(rolled(counted.writes)).toEqual([D0 + HOUR]);
    await clock.advanceTo(D0 + 3 * HOUR + SETTINGS.delayMs - 1, settle);
    expect(rolled(counted.writes)).toEqual([D0 + HOUR]);
    await clock.advanceTo(D0 + 6 * HOUR + SETTINGS.delayMs, settle);
    await scheduler.stop();
    expect(rolled(counted.writes)).toEqual([1, 2, 3, 4, 5].map((h) => D0 + h * HOUR));
  });

  it('catches up the periods missed while it was stopped, in order, on restart', async () => {
    const clock = new FakeClock(D0 + 10 * HOUR + SETTINGS.delayMs);
    const counted = countingStore(await storeWithData(1));
    await createTask(counted.store, clock);
    const first = schedulerOn(counted.store, clock, 'g1');
    await first.tick();
    expect(rolled(counted.writes)).toEqual([D0 + 9 * HOUR]);
    await first.stop();

    // Down for five intervals; a new gateway process (another owner) picks up where the first one stopped.
    clock.t += 5 * HOUR;
    counted.writes.length = 0;
    const second = schedulerOn(counted.store, clock, 'g2');
    await second.tick();
    expect(rolled(counted.writes)).toEqual([10, 11, 12, 13, 14].map((h) => D0 + h * HOUR));
    expect(second.status('task-1')).toMatchObject({
      pendingPeriods: 0,
      completedThroughMs: D0 + 15 * HOUR,
      lastSuccess: { owner: 'g2' },
    });
  });

  it('retries a failed period with backoff, never skipping it, and says which periods are pending', async () => {
    const clock = new FakeClock(D0 + 2 * HOUR + SETTINGS.delayMs);
    let failing = false;
    const counted = countingStore(await storeWithData(1), () => failing);
    await createTask(counted.store, clock);
    const scheduler = schedulerOn(counted.store, clock, 'g1');
    await scheduler.tick();
    failing = true;
    clock.t += 3 * HOUR;
    await scheduler.tick();
    const failed = scheduler.status('task-1')!;
    expect(failed).toMatchObject({
      failures: 1,
      pendingPeriods: 3,
      completedThroughMs: D0 + 2 * HOUR,
      lastRun: { periodStartMs: D0 + 2 * HOUR, pointsWritten: 0, error: 'the disk is full' },
      lastSuccess: { periodStartMs: D0 + HOUR },
    });
    expect(failed.retryAtMs).toBe(failed.lastRun!.startedMs + 5000);
    // Before the retry is due nothing runs; after it, failing again doubles the wait.
    await scheduler.tick();
    expect(scheduler.counters().get('task-1')).toMatchObject({ runs: 2, failures: 1 });
    clock.t = failed.retryAtMs!;
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({ failures: 2, retryAtMs: clock.t + 10_000, pendingPeriods: 3 });
    failing = false;
    clock.t += 10_000;
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({
      failures: 0,
      pendingPeriods: 0,
      completedThroughMs: D0 + 5 * HOUR,
    });
    expect(scheduler.status('task-1')!.retryAtMs).toBeUndefined();
    expect(rolled(counted.writes)).toEqual([1, 2, 3, 4].map((h) => D0 + h * HOUR));
  });

  it('catches up at most ROLLUPS_MAX_CATCH_UP_PERIODS after downtime and records the periods it skipped', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const counted = countingStore(await storeWithData(1));
    await createTask(counted.store, clock);
    const scheduler = schedulerOn(counted.store, clock, 'g1', { maxCatchUpPeriods: 3 });
    await scheduler.tick();
    clock.t += 10 * HOUR;
    counted.writes.length = 0;
    await scheduler.tick();
    expect(rolled(counted.writes)).toEqual([8, 9, 10].map((h) => D0 + h * HOUR));
    expect(scheduler.status('task-1')).toMatchObject({
      pendingPeriods: 0,
      skipped: { fromMs: D0 + HOUR, toMs: D0 + 8 * HOUR, periods: 7 },
    });
    expect(scheduler.counters().get('task-1')!.periodsSkipped).toBe(7);
  });

  it('picks up tasks created, changed and deleted elsewhere at its next poll', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const data = await storeWithData(1);
    const scheduler = schedulerOn(data, clock, 'g1');
    await scheduler.tick();
    expect(scheduler.statuses()).toEqual([]);
    const { tasks } = await createTask(data, clock);
    await data.serviceIndex.set('_Rollups', 'Config', 'broken', '{"name": "x"}');
    await scheduler.tick();
    expect(scheduler.statuses()).toEqual([]);
    clock.t += SETTINGS.pollMs;
    await scheduler.tick();
    expect(scheduler.statuses().map((s) => [s.id, s.error])).toEqual([
      ['broken', 'execution_interval is required: {value, unit}, how often the task runs (got undefined)'],
      ['task-1', undefined],
    ]);
    await tasks.delete('task-1');
    scheduler.refresh();
    await scheduler.tick();
    expect(scheduler.statuses().map((s) => s.id)).toEqual(['broken']);
  });
});
