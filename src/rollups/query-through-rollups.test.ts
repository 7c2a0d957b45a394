/**
 * The query rewrite through roll-ups (`useRollups`): a property test that a query answered from roll-ups gives the
 * raw computation's groups, timestamps and values (sum, count, min, max, and avg through a sum and a count roll-up;
 * integers, so exact), over random points, samplings, group-bys, orders and ranges reaching before and after the
 * completed periods; and through GraphQL, the roll-ups named in `extensions.statistics`, or why the raw data was read.
 */
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { startGateway } from '../../test/support/gateway.js';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { loadConfig } from '../gateway/config.js';
import type { MetricQuery } from '../model/query.js';
import { RequestScopes, scopeSettings } from '../app/request-scope.js';
import { KairosdbSource } from '../sources/kairosdb/kairosdb-source.js';
import { Sources } from '../sources/sources.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { queryThroughRollups } from './query-through-rollups.js';
import { RollupService } from './rollup-service.js';
import { parseRollupTask } from './rollup-task.js';
import { taskStoreOf } from './task-store.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const D0 = Date.UTC(2026, 0, 5);
const config = loadConfig({ SEED_DEMO: 'false' });
const log = pino({ level: 'silent' });
afterAll(removeTempDirs);

interface Case {
  readonly aggregator: 'sum' | 'count' | 'min' | 'max' | 'avg';
  readonly rollupMinutes: number;
  /** The count roll-up's sampling for avg, as a divisor of the query's sampling in roll-up ranges. */
  readonly countDivisor: number;
  readonly factor: number;
  readonly groupByHost: boolean;
  readonly alignStartTime: boolean;
  readonly desc: boolean;
  /** Hours after D0 the scheduler last ran: the roll-ups complete [D0 − 1 h, D0 + this). */
  readonly ranHours: number;
  readonly fromMs: number;
  readonly lengthMs: number;
  readonly points: readonly { host: string; offsetMs: number; value: number }[];
}

/** Stores the points (D0 − 2 h to D0 + 8 h), rolls them up on a fake clock, and answers the query both ways. */
async function bothWays(c: Case) {
  const store = await EmbeddedStore.open({ path: tempDir() });
  try {
    const byHost = new Map<string, { t: number; v: number }[]>();
    for (const p of c.points)
      byHost.set(p.host, [...(byHost.get(p.host) ?? []), { t: D0 - 2 * HOUR + p.offsetMs, v: p.value }]);
    await store.write({
      series: [...byHost].map(([host, pts]) => ({
        metric: 'm',
        tags: { host, dc: 'x' },
        type: 'long' as const,
        ttlSeconds: 0,
        timestamps: pts.map((p) => p.t),
        values: pts.map((p) => p.v),
      })),
    });
    const sources = new Sources(new KairosdbSource('kairosdb', store));
    const groupBy = c.groupByHost ? [{ name: 'tag', tags: ['host'] }] : [];
    const samplingMinutes = c.rollupMinutes * c.factor;
    const rollup = (kind: string, minutes: number) => ({
      save_as: `m.${kind}`,
      query: {
        start_relative: { value: 1, unit: 'hours' },
        metrics: [
          {
            name: 'm',
            tags: { dc: 'x' },
            group_by: groupBy,
            aggregators: [{ name: kind, sampling: { value: minutes, unit: 'minutes' } }],
          },
        ],
      },
    });
    const rollups =
      c.aggregator === 'avg'
        ? [rollup('sum', c.rollupMinutes), rollup('count', samplingMinutes / c.countDivisor)]
        : [rollup(c.aggregator, c.rollupMinutes)];
    const task = { id: 't', name: 'prop', execution_interval: { value: 1, unit: 'hours' }, rollups };
    await taskStoreOf(sources)!.put(parseRollupTask(JSON.stringify(task), { limits: store.limits, nowMs: D0 }));
    const clock = new FakeClock(D0);
    const service = new RollupService({
      sources,
      scopes: new RequestScopes({ sources, settings: scopeSettings(config), log }),
      log,
      clock,
      owner: 'prop',
      settings: {
        pollMs: 1000,
        maxCatchUpPeriods: 100,
        leaseMs: 60_000,
        delayMs: 0,
        minIntervalMs: 0,
        maxTasksPerClient: 0,
      },
    });
    await service.tick();
    clock.t = D0 + c.ranHours * HOUR;
    await service.tick();

    const query: MetricQuery = {
      source: 'kairosdb',
      metric: 'm',
      range: { startMs: D0 - 2 * HOUR + c.fromMs, endMs: D0 - 2 * HOUR + c.fromMs + c.lengthMs },
      tags: [{ tag: 'dc', in: ['x'] }],
      aggregators: [
        {
          name: c.aggregator,
          params: {
            sampling: { value: samplingMinutes, unit: 'minutes' },
            ...(c.alignStartTime ? { align_start_time: true } : {}),
          },
        },
      ],
      groupBy: c.groupByHost ? [{ name: 'tag', params: { tags: ['host'] } }] : [],
      timeZone: 'UTC',
      order: c.desc ? 'desc' : 'asc',
      excludeTags: false,
    };
    const ctx = new RequestScopes({ sources, settings: scopeSettings(config), log }).open();
    try {
      const answer = (output: Awaited<ReturnType<typeof ctx.runQuery>>) =>
        output.groups.map((g) => ({
          groupBy: g.groupBy,
          points: [...g.points.timestamps].map((t, i) => [t, g.points.kinds[i], g.points.values[i]]),
        }));
      const raw = answer(await ctx.runQuery(query, 'raw'));
      const rolled = answer(await queryThroughRollups(ctx, service, query, 'rolled'));
      const reads = ctx.queries.filter((q) => q.label === 'rolled').map((q) => q.rewrite);
      // A whole range of the query (anchored at midnight of its start's day) within the completed periods.
      const w = samplingMinutes * MINUTE;
      const anchor = Math.floor(query.range.startMs / (24 * HOUR)) * 24 * HOUR;
      const lo = Math.max(query.range.startMs, D0 - HOUR);
      const hi = Math.min(query.range.endMs + 1, D0 + c.ranHours * HOUR);
      const rollable = anchor + Math.ceil((lo - anchor) / w) * w + w <= hi && (!c.desc || c.alignStartTime);
      return { raw, rolled, reads, rollable };
    } finally {
      ctx.dispose();
    }
  } finally {
    await store.close();
  }
}

const cases: fc.Arbitrary<Case> = fc
  .record({
    aggregator: fc.constantFrom('sum' as const, 'count' as const, 'min' as const, 'max' as const, 'avg' as const),
    rollupMinutes: fc.constantFrom(1, 5, 10, 15, 30, 60),
    countDivisor: fc.constantFrom(1, 2, 3),
    factor: fc.constantFrom(1, 2, 3, 4, 6),
    groupByHost: fc.boolean(),
    alignStartTime: fc.boolean(),
    desc: fc.boolean(),
    ranHours: fc.integer({ min: 1, max: 6 }),
    fromMs: fc.oneof(
      fc.integer({ min: 0, max: 10 * HOUR }),
      fc.integer({ min: 0, max: 20 }).map((k) => k * 30 * MINUTE),
    ),
    lengthMs: fc.oneof(
      fc.integer({ min: 0, max: 10 * HOUR }),
      fc.integer({ min: 1, max: 20 }).map((k) => k * 30 * MINUTE - 1),
    ),
    points: fc.array(
      fc.record({
        host: fc.constantFrom('a', 'b', 'c'),
        offsetMs: fc.integer({ min: 0, max: 10 * HOUR - 1 }),
        value: fc.integer({ min: -1_000_000, max: 1_000_000 }),
      }),
      { minLength: 1, maxLength: 300 },
    ),
  })
  // The count roll-up's sampling divides the query's and a day (whole minutes).
  .filter(
    (c) =>
      (c.rollupMinutes * c.factor) % c.countDivisor === 0 &&
      (24 * 60) % ((c.rollupMinutes * c.factor) / c.countDivisor) === 0,
  );

describe('useRollups', () => {
  it('answers from roll-ups exactly what the raw computation answers (sum, count, min, max, avg)', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const { raw, rolled, reads, rollable } = await bothWays(c);
        expect(rolled).toEqual(raw);
        const fromRollups = reads.filter((use) => use?.metric !== undefined).map((use) => use!.metric);
        expect(fromRollups).toEqual(
          !rollable ? [] : c.aggregator === 'avg' ? ['m.sum', 'm.count'] : [`m.${c.aggregator}`],
        );
      }),
      { numRuns: 100 },
    );
  });

  it('reads the raw data, and says why, where a roll-up would not give the same answer', async () => {
    const store = await EmbeddedStore.open({ path: tempDir() });
    try {
      await store.write({
        series: [{ metric: 'm', tags: { host: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [D0 + 5], values: [1] }],
      });
      const gw = await startGateway(store);
      try {
        const task = {
          id: 't',
          name: 'x',
          execution_interval: { value: 1, unit: 'hours' },
          rollups: [
            {
              save_as: 'm.rolled',
              query: {
                start_relative: { value: 1, unit: 'hours' },
                metrics: [{ name: 'm', aggregators: [{ name: 'sum', sampling: { value: 10, unit: 'minutes' } }] }],
              },
            },
          ],
        };
        await gw.graphql('mutation ($task: String!) { createRollup(task: $task) { id } }', {
          task: JSON.stringify(task),
        });
        const ask = async (aggregator: string, sampling: number, from: number) => {
          const answer = await gw.graphql(
            `{ series(metric: "m", from: ${from}, to: ${D0 + 2 * HOUR - 1}, aggregators: [{ ${aggregator}: { sampling: { value: ${sampling}, unit: MINUTES } } }], useRollups: true) { name } }`,
          );
          return (answer.extensions!['statistics'] as { queries: { rollup: unknown }[] }).queries[0]!.rollup;
        };
        expect(await ask('sum', 15, D0)).toEqual({
          reason: "t: the query's sampling is not a multiple of its 600000 ms",
        });
        expect(await ask('sum', 20, D0 + 1)).toEqual({ reason: 't: it has completed no period yet' });
        expect(await ask('max', 20, D0)).toEqual({ reason: 't: its aggregator is not max alone' });
        expect(await ask('avg', 20, D0)).toEqual({ reason: 't: it has completed no period yet' });
        expect(await ask('min', 20, D0)).toEqual({ reason: 't: its aggregator is not min alone' });
        expect(await ask('first', 20, D0)).toEqual({
          reason: 'first is not read from roll-ups (sum, count, min, max and avg are)',
        });
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
      await store.write({
        series: [
          {
            metric: 'm',
            tags: { host: 'a' },
            type: 'long',
            ttlSeconds: 0,
            timestamps,
            values: timestamps.map((_, i) => i),
          },
        ],
      });
      const gw = await startGateway(store, { ROLLUPS_DELAY_MS: '0' });
      try {
        const task = {
          name: 'x',
          execution_interval: { value: 1, unit: 'hours' },
          rollups: [
            {
              save_as: 'm.rolled',
              query: {
                start_relative: { value: 1, unit: 'hours' },
                metrics: [{ name: 'm', aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'hours' } }] }],
              },
            },
          ],
        };
        const created = await gw.graphql('mutation ($task: String!) { createRollup(task: $task) { id } }', {
          task: JSON.stringify(task),
        });
        const id = (created.body.data as { createRollup: { id: string } }).createRollup.id;
        await gw.gateway.rollups.tick();
        const query = `query ($use: Boolean) { series(metric: "m", from: ${hour - HOUR}, to: ${hour - 1}, aggregators: [{ sum: { sampling: { value: 1, unit: HOURS } } }], useRollups: $use) { name points { epochMs value } } }`;
        const raw = await gw.graphql(query, { use: false });
        const rolled = await gw.graphql(query, { use: true });
        expect(rolled.body).toEqual(raw.body);
        expect(raw.body.data).toEqual({
          series: [{ name: 'm', points: [{ epochMs: hour - HOUR, value: (60 + 119) * 30 }] }],
        });
        const stats = (r: typeof raw) =>
          (r.extensions!['statistics'] as { queries: { metric: string; pointsRead: number; rollup?: unknown }[] })
            .queries[0]!;
        expect(stats(rolled)).toMatchObject({
          metric: 'm.rolled',
          pointsRead: 1,
          rollup: { task: id, metric: 'm.rolled' },
        });
        expect(stats(raw)).toMatchObject({ metric: 'm', pointsRead: 60 });
        expect(stats(raw).rollup).toBeUndefined();
      } finally {
        await gw.close();
      }
    } finally {
      await store.close();
    }
  });

  it('answers avg from a sum and a count roll-up, and reads raw the ranges outside their completed periods', async () => {
    const store = await EmbeddedStore.open({ path: tempDir() });
    try {
      const now = Date.now();
      const hour = Math.floor(now / HOUR) * HOUR;
      const timestamps = Array.from(
        { length: Math.floor((now - (hour - 2 * HOUR)) / MINUTE) + 1 },
        (_, i) => hour - 2 * HOUR + i * MINUTE,
      );
      await store.write({
        series: [
          {
            metric: 'm',
            tags: { host: 'a' },
            type: 'long',
            ttlSeconds: 0,
            timestamps,
            values: timestamps.map((_, i) => i * i),
          },
        ],
      });
      const gw = await startGateway(store, { ROLLUPS_DELAY_MS: '0' });
      try {
        const rollup = (kind: string) => ({
          save_as: `m.${kind}`,
          query: {
            start_relative: { value: 1, unit: 'hours' },
            metrics: [{ name: 'm', aggregators: [{ name: kind, sampling: { value: 10, unit: 'minutes' } }] }],
          },
        });
        const task = {
          name: 'x',
          execution_interval: { value: 1, unit: 'hours' },
          rollups: [rollup('sum'), rollup('count')],
        };
        const created = await gw.graphql('mutation ($task: String!) { createRollup(task: $task) { id } }', {
          task: JSON.stringify(task),
        });
        const id = (created.body.data as { createRollup: { id: string } }).createRollup.id;
        // A new task rolls up the latest complete hour only: [hour − 1 h, hour).
        await gw.gateway.rollups.tick();
        const query = `query ($use: Boolean) { series(metric: "m", from: ${hour - 2 * HOUR}, to: ${now}, aggregators: [{ avg: { sampling: { value: 30, unit: MINUTES } } }], useRollups: $use) { name tags { name values } points { epochMs value } } }`;
        const raw = await gw.graphql(query, { use: false });
        const rolled = await gw.graphql(query, { use: true });
        expect(rolled.body).toEqual(raw.body);
        const points = (raw.body.data as { series: { points: unknown[] }[] }).series[0]!.points;
        expect(points[2]).toEqual({
          epochMs: hour - HOUR,
          value: Array.from({ length: 30 }, (_, i) => (60 + i) ** 2).reduce((a, b) => a + b) / 30,
        });
        const reads = (
          rolled.extensions!['statistics'] as { queries: { metric: string; pointsRead: number; rollup: unknown }[] }
        ).queries;
        const at = (ms: number) => new Date(ms).toISOString();
        const covered = `its completed periods (${at(hour - HOUR)} to ${at(hour)})`;
        expect(reads).toEqual([
          expect.objectContaining({
            metric: 'm',
            rollup: {
              reason: `${id}: ${at(hour - 2 * HOUR)} to ${at(hour - HOUR)} is no whole range of the query within ${covered}`,
            },
          }),
          expect.objectContaining({ metric: 'm.sum', pointsRead: 6, rollup: { task: id, metric: 'm.sum' } }),
          expect.objectContaining({ metric: 'm.count', pointsRead: 6, rollup: { task: id, metric: 'm.count' } }),
          expect.objectContaining({
            metric: 'm',
            rollup: { reason: `${id}: ${at(hour)} to ${at(now + 1)} is no whole range of the query within ${covered}` },
          }),
        ]);
      } finally {
        await gw.close();
      }
    } finally {
      await store.close();
    }
  });
});
