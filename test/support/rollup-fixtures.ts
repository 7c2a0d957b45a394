/**
 * What the roll-up tests of src/rollups share: days of 10 s data on an embedded store, a store that counts (or fails)
 * its writes, an hourly task over the data, and a scheduler over a store on a fake clock.
 */
import { pino } from 'pino';
import { RequestScopes, scopeSettings } from '../../src/app/request-scope.js';
import { loadConfig } from '../../src/gateway/config.js';
import { RollupScheduler, type Clock } from '../../src/rollups/rollup-scheduler.js';
import type { RollupSettings } from '../../src/rollups/rollup-settings.js';
import { parseRollupTask } from '../../src/rollups/rollup-task.js';
import { taskStoreOf } from '../../src/rollups/task-store.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { Sources } from '../../src/sources/sources.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import type { Store } from '../../src/store/store.js';
import type { WriteBatch } from '../../src/model/write-batch.js';
import { delegatingStore } from './store-wrappers.js';
import { tempDir } from './temp-dir.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** Monday 2026-01-05 00:00 UTC. */
export const D0 = Date.UTC(2026, 0, 5);
export const config = loadConfig({ SEED_DEMO: 'false' });
export const log = pino({ level: 'silent' });
export const SETTINGS: RollupSettings = {
  pollMs: 30_000,
  maxCatchUpPeriods: 1000,
  leaseMs: 600_000,
  delayMs: 60_000,
  minIntervalMs: 60_000,
  maxTasksPerClient: 0,
};

const opened: Store[] = [];

/** Closes the stores the fixtures opened: each test file's afterEach. */
export async function closeRollupStores(): Promise<void> {
  await Promise.all(opened.splice(0).map((store) => store.close()));
}

/** `days` of 10 s doubles from D0 for four hosts in two data centres. */
export async function storeWithData(days = 3): Promise<EmbeddedStore> {
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

/** Counts the points written to each metric, per period start (the hour of each point); `fail` makes writes fail. */
export function countingStore(inner: Store, fail?: () => boolean) {
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

/** The hours the roll-up metric was written for, in write order. */
export function rolled(writes: readonly { metric: string; firstMs: number }[]): number[] {
  return [...new Set(writes.filter((w) => w.metric === 'cpu.hourly').map((w) => w.firstMs - (w.firstMs % HOUR)))];
}

/** A gateway's scheduler over `store`, named `owner`. */
export function schedulerOn(store: Store, clock: Clock, owner: string, settings: Partial<RollupSettings> = {}) {
  const sources = new Sources(new KairosdbSource('kairosdb', store));
  const scopes = new RequestScopes({ sources, settings: scopeSettings(config), log });
  const tasks = taskStoreOf(sources, () => clock.now());
  return new RollupScheduler({ store: tasks, scopes, log, clock, owner, settings: { ...SETTINGS, ...settings } });
}

/** Hourly averages of the east data centre's hosts, by host, into `cpu.hourly`. */
export const TASK = {
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

/** Stores a task in `store`'s service_index, as KairosDB or another gateway would. */
export async function createTask(store: Store, clock: Clock, body: object = TASK, id = 'task-1') {
  const tasks = taskStoreOf(new Sources(new KairosdbSource('kairosdb', store)), () => clock.now())!;
  const task = parseRollupTask(JSON.stringify({ id, ...body }), { limits: store.limits, nowMs: clock.now() });
  await tasks.put(task);
  return { task, tasks };
}
