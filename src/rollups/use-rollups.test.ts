/**
 * `useRollups`: a property test that a query answered from a roll-up gives the raw computation's groups, timestamps
 * and values (sum, count, min and max; sums of integers, so exact), over random points, samplings, group-bys and
 * ranges; and through GraphQL, the roll-up named in `extensions.statistics`, or why the raw data was read.
 */
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { startGateway } from '../../test/support/gateway.js';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { loadConfig } from '../config.js';
import type { MetricQuery } from '../query/model.js';
import { createRequestContext } from '../server/request-context.js';
import { KairosdbSource } from '../sources/kairosdb/kairosdb-source.js';
import { Sources } from '../sources/sources.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { RollupScheduler, taskStoreOf } from './rollup-scheduler.js';
import { parseRollupTask } from './rollup-task.js';
import { planWithRollups } from './use-rollups.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const D0 = Date.UTC(2026, 0, 5);
const config = loadConfig({ SEED_DEMO: 'false' });
const log = pino({ level: 'silent' });
afterAll(removeTempDirs);

interface Case {
  readonly aggregator: 'sum' | 'count' | 'min' | 'max';
  readonly rollupMinutes: number;
  readonly factor: number;
  readonly groupByHost: boolean;
  readonly alignStartTime: boolean;
  readonly fromRange: number;
  readonly points: readonly { host: string; offsetMs: number; value: number }[];
}

/** Stores the points, rolls them up over six hours on a fake clock, and answers the query both ways. */
async function bothWays(c: Case) {
  const store = await EmbeddedStore.open({ path: tempDir() });
  try {
    const byHost = new Map<string, { t: number; v: number }[]>();
    for (const p of c.points) byHost.set(p.host, [...(byHost.get(p.host) ?? []), { t: D0 + p.offsetMs, v: p.value }]);
    await store.write({
      series: [...byHost].map(([host, pts]) => ({ metric: 'm', tags: { host, dc: 'x' }, type: 'long' as const, ttlSeconds: 0, timestamps: pts.map((p) => p.t), values: pts.map((p) => p.v) })),
    });
    const sources = new Sources(new KairosdbSource('kairosdb', store));
    const groupBy = c.groupByHost ? [{ name: 'tag', tags: ['host'] }] : [];
    const task = {
      id: 't',
      name: 'prop',
      execution_interval: { value: 1, unit: 'hours' },
      rollups: [{ save_as: 'm.rolled', query: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: 'm', tags: { dc: 'x' }, group_by: groupBy, aggregators: [{ name: c.aggregator, sampling: { value: c.rollupMinutes, unit: 'minutes' } }] }] } }],
    };
    await taskStoreOf(sources)!.put(parseRollupTask(JSON.stringify(task), { limits: store.limits, nowMs: D0 }));
    const clock = new FakeClock(D0);
    const scheduler = new RollupScheduler({ sources, config, log, clock, owner: 'prop', settings: { pollMs: 1000, maxCatchUpPeriods: 100, leaseMs: 60_000, delayMs: 0 } });
    await scheduler.tick();
    clock.t = D0 + 6 * HOUR;
    await scheduler.tick();

    const samplingMinutes = c.rollupMinutes * c.factor;
    const query: MetricQuery = {
      source: 'kairosdb',
      metric: 'm',
      range: { startMs: D0 + c.fromRange * c.rollupMinutes * MINUTE, endMs: D0 + 6 * HOUR - 1 },
      tags: [{ tag: 'dc', in: ['x'] }],
      aggregators: [{ name: c.aggregator, params: { sampling: { value: samplingMinutes, unit: 'minutes' }, ...(c.alignStartTime ? { align_start_time: true } : {}) } }],
      groupBy: c.groupByHost ? [{ name: 'tag', params: { tags: ['host'] } }] : [],
      timeZone: 'UTC',
      order: 'asc',
      excludeTags: false,
    };
    const ctx = createRequestContext(sources, config, log);
    try {
      const planned = await planWithRollups(ctx, query);
      const answer = async (q: MetricQuery) =>
        (await ctx.runQuery(q, 'q')).groups.map((g) => ({ groupBy: g.groupBy, points: [...g.points.timestamps].map((t, i) => [t, g.points.values[i]]) }));
      return { use: planned.use, raw: await answer(query), rolled: await answer(planned.query) };
    } finally {
      ctx.dispose();
    }
  } finally {
    await store.close();
  }
}

const cases: fc.Arbitrary<Case> = fc.record({
  aggregator: fc.constantFrom('sum' as const, 'count' as const, 'min' as const, 'max' as const),
  rollupMinutes: fc.constantFrom(1, 5, 10, 15, 30, 60),
  factor: fc.constantFrom(1, 2, 3, 4, 6),
  groupByHost: fc.boolean(),
  alignStartTime: fc.boolean(),
  fromRange: fc.integer({ min: 0, max: 5 }),
  points: fc.array(
    fc.record({ host: fc.constantFrom('a', 'b', 'c'), offsetMs: fc.integer({ min: 0, max: 6 * HOUR - 1 }), value: fc.integer({ min: -1_000_000, max: 1_000_000 }) }),
    { minLength: 1, maxLength: 300 },
  ),
});

describe('useRollups', () => {
  it('answers from a roll-up exactly what the raw computation answers (sum, count, min, max)', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const { use, raw, rolled } = await bothWays(c);
        expect(use).toEqual({ task: 't', metric: 'm.rolled' });
        expect(rolled).toEqual(raw);
      }),
      { numRuns: 60 },
    );
  });

  it('reads the raw data, and says why, where a roll-up would not give the same answer', async () => {
    const store = await EmbeddedStore.open({ path: tempDir() });
    try {
      await store.write({ series: [{ metric: 'm', tags: { host: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [D0 + 5], values: [1] }] });
      const gw = await startGateway(store);
      try {
        const task = { id: 't', name: 'x', execution_interval: { value: 1, unit: 'hours' }, rollups: [{ save_as: 'm.rolled', query: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: 'm', aggregators: [{ name: 'sum', sampling: { value: 10, unit: 'minutes' } }] }] } }] };
        await gw.graphql('mutation ($task: String!) { createRollup(task: $task) { id } }', { task: JSON.stringify(task) });
        const ask = async (aggregator: string, sampling: number, from: number) => {
          const answer = await gw.graphql(
            `{ series(metric: "m", from: ${from}, to: ${D0 + 2 * HOUR - 1}, aggregators: [{ ${aggregator}: { sampling: { value: ${sampling}, unit: MINUTES } } }], useRollups: true) { name } }`,
          );
          return (answer.extensions?.['statistics'] as { queries: { rollup: unknown }[] }).queries[0]!.rollup;
        };
        expect(await ask('sum', 15, D0)).toEqual({ reason: "t: the query's sampling is not a multiple of its 600000 ms" });
        expect(await ask('sum', 20, D0 + 1)).toEqual({ reason: 't: the range does not start and end on its 600000 ms ranges' });
        expect(await ask('sum', 20, D0)).toEqual({ reason: 't: its completed periods (- to -) do not cover the range' });
        expect(await ask('max', 20, D0)).toEqual({ reason: 't: its aggregator is not max alone' });
        expect(await ask('avg', 20, D0)).toEqual({ reason: 'avg is not read from roll-ups (sum, count, min and max are)' });
      } finally {
        await gw.close();
      }
    } finally {
      await store.close();
    }
  });

  it('names the roll-up it read in extensions.statistics, and answers for the metric asked for', async () => {
    const store = await EmbeddedStore.open({ path: tempDir() });
    try {
      const now = Date.now();
      const hour = Math.floor(now / HOUR) * HOUR;
      const timestamps = Array.from({ length: 120 }, (_, i) => hour - 2 * HOUR + i * MINUTE);
      await store.write({ series: [{ metric: 'm', tags: { host: 'a' }, type: 'long', ttlSeconds: 0, timestamps, values: timestamps.map((_, i) => i) }] });
      const gw = await startGateway(store, { ROLLUPS_DELAY_MS: '0' });
      try {
        const task = { name: 'x', execution_interval: { value: 1, unit: 'hours' }, rollups: [{ save_as: 'm.rolled', query: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: 'm', aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'hours' } }] }] } }] };
        const created = await gw.graphql('mutation ($task: String!) { createRollup(task: $task) { id } }', { task: JSON.stringify(task) });
        const id = (created.body.data as { createRollup: { id: string } }).createRollup.id;
        await gw.gateway.rollups.tick();
        const query = `query ($use: Boolean) { series(metric: "m", from: ${hour - HOUR}, to: ${hour - 1}, aggregators: [{ sum: { sampling: { value: 1, unit: HOURS } } }], useRollups: $use) { name points { epochMs value } } }`;
        const raw = await gw.graphql(query, { use: false });
        const rolled = await gw.graphql(query, { use: true });
        expect(rolled.body).toEqual(raw.body);
        expect(raw.body.data).toEqual({ series: [{ name: 'm', points: [{ epochMs: hour - HOUR, value: (60 + 119) * 30 }] }] });
        const stats = (r: typeof raw) => (r.extensions?.['statistics'] as { queries: { metric: string; pointsRead: number; rollup?: unknown }[] }).queries[0]!;
        expect(stats(rolled)).toMatchObject({ metric: 'm.rolled', pointsRead: 1, rollup: { task: id, metric: 'm.rolled' } });
        expect(stats(raw)).toMatchObject({ metric: 'm', pointsRead: 60 });
        expect(stats(raw).rollup).toBeUndefined();
      } finally {
        await gw.close();
      }
    } finally {
      await store.close();
    }
  });
});
