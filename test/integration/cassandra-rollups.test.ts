/**
 * Roll-up tasks on a real Cassandra: two gateways (two stores, each with its own driver connection and roll-up service) on
 * one keyspace run each period of a task exactly once, decided by lightweight transactions on the period's claim
 * (counted writes and counted LWTs); a task and status written through one are read through the other.
 */
import { pino } from 'pino';
import { afterAll, afterEach, expect, it } from 'vitest';
import { RequestScopes, scopeSettings } from '../../src/app/request-scope.js';
import { loadConfig } from '../../src/gateway/config.js';
import { parseRollupTask } from '../../src/rollups/rollup-task.js';
import { RollupService } from '../../src/rollups/rollup-service.js';
import type { RollupSettings } from '../../src/rollups/rollup-settings.js';
import { taskStoreOf } from '../../src/rollups/task-store.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { Sources } from '../../src/sources/sources.js';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.js';
import type { Store } from '../../src/store/store.js';
import type { WriteBatch } from '../../src/model/write-batch.js';
import { FakeClock } from '../support/fake-clock.js';
import { delegatingStore } from '../support/store-wrappers.js';
import { KeyspacePool, storeOptions } from './cassandra-stores.js';

const HOUR = 3_600_000;
const D0 = Date.UTC(2026, 0, 5);
const SETTINGS: RollupSettings = {
  pollMs: 30_000,
  maxCatchUpPeriods: 1000,
  leaseMs: 600_000,
  delayMs: 60_000,
  minIntervalMs: 60_000,
  maxTasksPerClient: 0,
};
const config = loadConfig({ SEED_DEMO: 'false' });
const log = pino({ level: 'silent' });
const pool = new KeyspacePool('kg_rollups');
const open: Store[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});
afterAll(() => pool.shutdown());

const TASK = JSON.stringify({
  id: 'lwt-task',
  name: 'load every 10 minutes',
  execution_interval: { value: 10, unit: 'minutes' },
  rollups: [
    {
      save_as: 'load.10m',
      query: {
        start_relative: { value: 1, unit: 'hours' },
        metrics: [
          {
            name: 'load',
            group_by: [{ name: 'tag', tags: ['host'] }],
            aggregators: [{ name: 'max', sampling: { value: 10, unit: 'minutes' } }],
          },
        ],
      },
    },
  ],
});

/** A gateway's roll-up service over its own store, counting the roll-up points it writes per period. */
function gateway(store: Store, clock: FakeClock, owner: string, writes: Map<number, number>) {
  const counted = delegatingStore(store, {
    write: async (batch: WriteBatch) => {
      for (const s of batch.series.filter((s) => s.metric === 'load.10m')) {
        const period = s.timestamps[0]! - (s.timestamps[0]! % 600_000);
        writes.set(period, (writes.get(period) ?? 0) + 1);
      }
      await store.write(batch);
    },
  });
  const sources = new Sources(new KairosdbSource('kairosdb', counted));
  return new RollupService({
    sources,
    scopes: new RequestScopes({ sources, settings: scopeSettings(config), log }),
    log,
    clock,
    owner,
    settings: SETTINGS,
  });
}

it('two gateways on one keyspace run each period once, decided by lightweight transactions (counted writes)', async () => {
  const first = await pool.store();
  open.push(first);
  // The second gateway: its own connection to the same keyspace.
  const second = await CassandraStore.open(
    storeOptions((first as unknown as { options: { keyspace: string } }).options.keyspace),
  );
  open.push(second);
  const timestamps = Array.from({ length: 4 * 360 }, (_, i) => D0 + i * 10_000);
  await first.write({
    series: ['a', 'b', 'c'].map((host, h) => ({
      metric: 'load',
      tags: { host },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps,
      values: timestamps.map((_, i) => (i * 31 + h) % 97),
    })),
  });
  await taskStoreOf(new Sources(new KairosdbSource('kairosdb', first)))!.put(
    parseRollupTask(TASK, { limits: first.limits, nowMs: D0 }),
  );

  const clock = new FakeClock(D0 + SETTINGS.delayMs);
  const writes = new Map<number, number>();
  const one = gateway(first, clock, 'gateway-1', writes);
  const two = gateway(second, clock, 'gateway-2', writes);
  const claimsBefore = (first.statements['service_index.claim'] ?? 0) + (second.statements['service_index.claim'] ?? 0);
  // Four hours, one period at a time, both gateways asking at once; the loser looks again ten seconds later.
  for (let period = 1; period <= 24; period++) {
    clock.t = D0 + period * 600_000 + SETTINGS.delayMs;
    await Promise.all([one.tick(), two.tick()]);
    clock.t += 10_000;
    await Promise.all([two.tick(), one.tick()]);
  }
  // Three series (hosts) per period, each written by one gateway only; none before D0 had data.
  expect([...writes].sort((a, b) => a[0] - b[0])).toEqual(Array.from({ length: 24 }, (_, i) => [D0 + i * 600_000, 3]));
  const runs = one.counters().get('lwt-task')!.runs + two.counters().get('lwt-task')!.runs;
  // First seen at 00:11, when 00:00-00:10 is the latest complete period: the 24 periods with data, each run once.
  expect(runs).toBe(24);
  expect(one.counters().get('lwt-task')!.runs).toBeGreaterThan(0);
  expect(two.counters().get('lwt-task')!.runs).toBeGreaterThan(0);
  for (const rollups of [one, two])
    expect(rollups.statuses()).toMatchObject([
      { id: 'lwt-task', completedThroughMs: D0 + 4 * HOUR, pendingPeriods: 0, failures: 0 },
    ]);
  // Every claim and completion went through Paxos.
  const claims =
    (first.statements['service_index.claim'] ?? 0) + (second.statements['service_index.claim'] ?? 0) - claimsBefore;
  expect(claims).toBeGreaterThanOrEqual(2 * 24);

  // The roll-up's points read back through either gateway's store: the max of each host per 10 minutes.
  const status = JSON.parse(
    (await taskStoreOf(new Sources(new KairosdbSource('kairosdb', second)))!.kairosStatus('lwt-task'))!,
  );
  expect(status.statuses[0]).toMatchObject({ metricName: 'load', dataPointCount: 3 });
});
