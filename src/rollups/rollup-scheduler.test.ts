/**
 * The roll-up scheduler on the embedded store with a fake clock (no real sleeps): three days of 10 s data rolled up
 * into hourly points equal to the `series` answer for the same query; a gateway stopped for five intervals catching up
 * in order; two schedulers on one store running each period once (counted writes); failures retried with backoff and
 * never skipped; catch-up bounded and said so; a claim of a gateway that died taken over after its lease.
 */
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { delegatingStore } from '../../test/support/store-wrappers.js';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { loadConfig } from '../gateway/config.js';
import { KairosdbSource } from '../sources/kairosdb/kairosdb-source.js';
import { Sources } from '../sources/sources.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import type { Store } from '../store/store.js';
import type { WriteBatch } from '../model/write-batch.js';
import { createRequestContext } from '../app/request-scope.js';
import { parseRollupTask } from './rollup-task.js';
import { RollupScheduler, kairosDate, taskStoreOf, type Clock, type SchedulerSettings } from './rollup-scheduler.js';
import type { MetricQuery } from '../model/query.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Monday 2026-01-05 00:00 UTC. */
const D0 = Date.UTC(2026, 0, 5);
const config = loadConfig({ SEED_DEMO: 'false' });
const log = pino({ level: 'silent' });
const SETTINGS: SchedulerSettings = { pollMs: 30_000, maxCatchUpPeriods: 1000, leaseMs: 600_000, delayMs: 60_000 };

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(removeTempDirs);

/** Three days of 10 s doubles from D0 for four hosts in two data centres. */
async function storeWithData(days = 3): Promise<EmbeddedStore> {
  const store = await EmbeddedStore.open({ path: tempDir() });
  opened.push(store);
  const n = (days * DAY) / 10_000;
  const series = ['a', 'b', 'c', 'd'].map((host, h) => ({
    metric: 'cpu',
    tags: { host, dc: h < 2 ? 'east' : 'west' },
    type: 'double' as const,
    ttlSeconds: 0,
    timestamps: Array.from({ length: n }, (_, i) => D0 + i * 10_000),
    values: Array.from({ length: n }, (_, i) => ((i * 7919 + h * 104_729) % 1000) / 7 + h),
  }));
  await store.write({ series });
  return store;
}

/** Counts the points written to each metric, per period start (the hour of each point). */
function countingStore(inner: Store, fail?: () => boolean) {
  const writes: { metric: string; points: number; firstMs: number }[] = [];
  const store = delegatingStore(inner, {
    write: async (batch: WriteBatch) => {
      if (fail?.()) throw new Error('the disk is full');
      for (const s of batch.series)
        writes.push({ metric: s.metric, points: s.timestamps.length, firstMs: Math.min(...s.timestamps) });
      await inner.write(batch);
    },
  });
  return { store, writes };
}

function schedulerOn(store: Store, clock: Clock, owner: string, settings: Partial<SchedulerSettings> = {}) {
  const sources = new Sources(new KairosdbSource('kairosdb', store));
  return new RollupScheduler({ sources, config, log, clock, owner, settings: { ...SETTINGS, ...settings } });
}

const TASK = {
  name: 'cpu hourly',
  execution_interval: { value: 1, unit: 'hours' },
  rollups: [
    {
      save_as: 'cpu.hourly',
      query: {
        start_relative: { value: 1, unit: 'hours' },
        metrics: [
          {
            name: 'cpu',
            tags: { dc: ['east'] },
            group_by: [{ name: 'tag', tags: ['host'] }],
            aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' } }],
          },
        ],
      },
    },
  ],
};

async function createTask(store: Store, clock: Clock, body: object = TASK, id = 'task-1') {
  const tasks = taskStoreOf(new Sources(new KairosdbSource('kairosdb', store)), clock)!;
  const task = parseRollupTask(JSON.stringify({ id, ...body }), { limits: store.limits, nowMs: clock.now() });
  await tasks.put(task);
  return { task, tasks };
}

/** The answer of one query, by group: `host` and its points. */
async function answer(store: Store, query: MetricQuery) {
  const ctx = createRequestContext(new Sources(new KairosdbSource('kairosdb', store)), config, log);
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

  it('runs each period once with two schedulers on one store, whichever asks first (counted writes)', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const counted = countingStore(await storeWithData(1));
    await createTask(counted.store, clock);
    const one = schedulerOn(counted.store, clock, 'g1');
    const two = schedulerOn(counted.store, clock, 'g2');
    await Promise.all([one.tick(), two.tick()]);
    for (let hour = 2; hour <= 24; hour++) {
      clock.t = D0 + hour * HOUR + SETTINGS.delayMs;
      // The one that lost a claim looks again after a few seconds, when the other has completed the period.
      await Promise.all([one.tick(), two.tick()]);
      clock.t += 10_000;
      await Promise.all([two.tick(), one.tick()]);
    }
    // Two series (hosts a and b) per hour, each written once.
    const perHour = new Map<number, number>();
    for (const w of counted.writes.filter((w) => w.metric === 'cpu.hourly'))
      perHour.set(w.firstMs - (w.firstMs % HOUR), (perHour.get(w.firstMs - (w.firstMs % HOUR)) ?? 0) + 1);
    expect([...perHour]).toEqual(Array.from({ length: 24 }, (_, h) => [D0 + h * HOUR, 2]));
    const runs = [...one.counters().values()][0]!.runs + [...two.counters().values()][0]!.runs;
    expect(runs).toBe(24);
    expect(one.status('task-1')!.completedThroughMs).toBe(D0 + 24 * HOUR);
    expect(two.status('task-1')!.completedThroughMs).toBe(D0 + 24 * HOUR);
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

  it('backs off when the store fails a claim, instead of trying again at once', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const data = await storeWithData(1);
    await createTask(data, clock);
    let down = true;
    const index = data.serviceIndex;
    const flaky = delegatingStore(data, {
      serviceIndex: {
        maxKeyBytes: index.maxKeyBytes,
        serviceKeys: (...a) => index.serviceKeys(...a),
        keys: (...a) => index.keys(...a),
        value: (...a) => index.value(...a),
        set: (...a) => index.set(...a),
        delete: (...a) => index.delete(...a),
        complete: (...a) => index.complete(...a),
        claim: (...a) => (down ? Promise.reject(new Error('no host available')) : index.claim(...a)),
      },
    });
    const scheduler = schedulerOn(flaky, clock, 'g1');
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({ failures: 1, retryAtMs: clock.t + 5000, pendingPeriods: 1 });
    down = false;
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({ failures: 1, pendingPeriods: 1 });
    clock.t += 5000;
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({ failures: 0, pendingPeriods: 0, completedThroughMs: D0 + HOUR });
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

  it('prunes the claims of periods older than catch-up goes back to, so the claims partition stays bounded', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const store = await storeWithData(1);
    await createTask(store, clock);
    const scheduler = schedulerOn(store, clock, 'g1', { maxCatchUpPeriods: 3 });
    for (let hour = 1; hour <= 8; hour++) {
      clock.t = D0 + hour * HOUR + SETTINGS.delayMs;
      await scheduler.tick();
    }
    // The last tick pruned before D0 + 5 h (three periods before the one now due), then ran D0 + 7 h.
    const keys = await store.serviceIndex.keys('_kairograph_rollup_claims', 'task-1');
    expect(keys).toEqual([5, 6, 7].map((h) => `${String(D0 + h * HOUR).padStart(16, '0')} 1 hours`));
    expect(scheduler.status('task-1')).toMatchObject({ pendingPeriods: 0, completedThroughMs: D0 + 8 * HOUR });
  });

  it("takes over a period whose claim a dead gateway holds once the claim's lease expired", async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const counted = countingStore(await storeWithData(1));
    await createTask(counted.store, clock);
    const key = `${String(D0).padStart(16, '0')} 1 hours`;
    await counted.store.serviceIndex.claim(
      '_kairograph_rollup_claims',
      'task-1',
      key,
      'dead',
      clock.t,
      clock.t + SETTINGS.leaseMs,
    );
    const scheduler = schedulerOn(counted.store, clock, 'g1');
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({
      heldBy: { owner: 'dead', untilMs: clock.t + SETTINGS.leaseMs },
      pendingPeriods: 1,
    });
    expect(rolled(counted.writes)).toEqual([]);
    clock.t += SETTINGS.leaseMs + 1;
    await scheduler.tick();
    expect(rolled(counted.writes)[0]).toBe(D0);
    expect(scheduler.status('task-1')!.heldBy).toBeUndefined();
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

/** The hours the roll-up metric was written for, in write order. */
function rolled(writes: readonly { metric: string; firstMs: number }[]): number[] {
  return [...new Set(writes.filter((w) => w.metric === 'cpu.hourly').map((w) => w.firstMs - (w.firstMs % HOUR)))];
}
