/**
 * The results cache and shared work through the real gateway, written once and run against every store: identical
 * cold requests read the store once, a client that leaves does not stop work others wait for, each waiter keeps its
 * own budget, writes and deletes through either front end are seen at once, and the statistics and /metrics say
 * what the cache saved.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.js';
import { createGateway, listen, type ListeningGateway } from '../../src/gateway/create-gateway.js';
import { primaryOnly } from '../../src/sources/open-sources.js';
import type { RowKey, ScanOptions, Store } from '../../src/store/store.js';
import type { Slice } from '../../src/model/series.js';
import { callRest } from '../rest/rest-client.js';
import { delegatingStore } from '../support/store-wrappers.js';

/** Makes a fresh, empty store; the suite closes it. */
export type SharedWorkStoreFactory = () => Promise<Store>;

/** 2024-05-01T00:00:00Z: six hours of points every 10 s from here, long past any freshness window. */
const T0 = Date.UTC(2024, 4, 1);
const STEP = 10_000;
const POINTS = 2160;
const END = T0 + POINTS * STEP - 1;
const HOSTS = ['web-1', 'web-2', 'web-3'];

/** Store calls by kind, and scans held until `release` (when `hold` is set). */
interface Counted {
  readonly store: Store;
  readonly calls: { rowTimes: number; rowKeys: number; legacyRowKeys: number; scans: number };
  /** Signals of the scans started, in order. */
  readonly scanSignals: (AbortSignal | undefined)[];
  hold: boolean;
  release(): void;
  held(): number;
}

function counted(inner: Store): Counted {
  let waiting: (() => void)[] = [];
  const c: Counted = {
    calls: { rowTimes: 0, rowKeys: 0, legacyRowKeys: 0, scans: 0 },
    scanSignals: [],
    hold: false,
    release() {
      c.hold = false;
      const all = waiting;
      waiting = [];
      for (const resolve of all) resolve();
    },
    held: () => waiting.length,
    store: delegatingStore(inner, {
      rowTimes: (metric, start, end) => {
        c.calls.rowTimes++;
        return inner.rowTimes(metric, start, end);
      },
      rowKeys: (metric, rowTime) => {
        c.calls.rowKeys++;
        return inner.rowKeys(metric, rowTime);
      },
      legacyRowKeys: (metric, start, end) => {
        c.calls.legacyRowKeys++;
        return inner.legacyRowKeys(metric, start, end);
      },
      async *scan(key: RowKey, start: number, end: number, options?: ScanOptions): AsyncGenerator<Slice> {
        c.calls.scans++;
        c.scanSignals.push(options?.signal);
        if (c.hold) await new Promise<void>((resolve) => waiting.push(resolve));
        yield* inner.scan(key, start, end, options);
      },
    }),
  };
  return c;
}

interface Running {
  readonly url: string;
  readonly gateway: ReturnType<typeof createGateway>;
  readonly lines: string[];
  graphql(query: string, signal?: AbortSignal): Promise<{ status: number; body: Record<string, unknown> }>;
}

const avgPerMinute = (from: number, to: number, hosts = HOSTS) =>
  `series(metric: "cpu", from: ${from}, to: ${to}, where: [{ tag: "host", in: ${JSON.stringify(hosts)} }], groupBy: { tags: ["host"] },
     aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }]) { host: tag(name: "host") sampleSize points { epochMs value } }`;

export function describeSharedWork(storeName: string, createStore: SharedWorkStoreFactory): void {
  describe.each([
    ['with the results cache', {}],
    ['without the results cache', { CACHE_MAX_BYTES: '0' }],
  ])(`shared work through the gateway (${storeName} store), %s`, (_, env: Record<string, string>) => {
    const open: { store: Store; server: ListeningGateway }[] = [];
    afterEach(async () => {
      for (const { store, server } of open.splice(0)) {
        // Clients that left keep their keep-alive sockets open for seconds; nothing is waiting on them.
        server.server.closeAllConnections();
        await server.close();
        await store.close();
      }
    });

    const start = async (extra: Record<string, string> = {}): Promise<Running & Counted> => {
      const c = counted(await createStore());
      const config = loadConfig({ SEED_DEMO: 'false', ...env, ...extra });
      const lines: string[] = [];
      const gateway = createGateway({
        sources: primaryOnly(config.primarySourceName, c.store),
        config,
        log: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
      });
      const server = await listen(gateway.handle, '127.0.0.1', 0, { requestTimeoutMs: config.queryTimeoutMs });
      open.push({ store: c.store, server });
      const graphql = async (query: string, signal?: AbortSignal) => {
        const response = await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
          ...(signal ? { signal } : {}),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const body = HOSTS.map((host, h) => ({
        name: 'cpu',
        tags: { host },
        datapoints: Array.from({ length: POINTS }, (_, i) => [T0 + i * STEP, h * 1000 + (i % 97)]),
      }));
      expect((await callRest(server.url, 'POST', '/api/v1/datapoints', { body })).status).toBe(204);
      Object.assign(c.calls, { rowTimes: 0, rowKeys: 0, legacyRowKeys: 0, scans: 0 });
      return Object.assign(c, { url: server.url, gateway, lines, graphql });
    };

    it('answers 32 identical cold requests that arrive together with one read of the store', async () => {
      const gw = await start();
      gw.hold = true;
      const query = `{ cpu: ${avgPerMinute(T0, END)} }`;
      const answers = Array.from({ length: 32 }, () => gw.graphql(query));
      // Every request is waiting for the first one's run before its scans may go on.
      await expect.poll(() => gw.gateway.shared.queries.waiting, { timeout: 10_000 }).toBe(32);
      gw.release();
      const bodies = (await Promise.all(answers)).map((a) => {
        expect(a.status).toBe(200);
        const { extensions, ...body } = a.body;
        return [
          body,
          (extensions as { statistics: { queries: { shared: boolean }[] } }).statistics.queries[0]!.shared,
        ] as const;
      });
      expect(new Set(bodies.map(([body]) => JSON.stringify(body))).size).toBe(1);
      expect(bodies.filter(([, shared]) => shared).length).toBe(31);
      // One row time (3-week rows), so one read of each index table, and one scan per host.
      expect(gw.calls).toEqual({ rowTimes: 1, rowKeys: 1, legacyRowKeys: 1, scans: 3 });
      const [body] = bodies[0]!;
      expect((body['data'] as { cpu: { sampleSize: number }[] }).cpu.map((s) => s.sampleSize)).toEqual([
        POINTS,
        POINTS,
        POINTS,
      ]);
    });

    it('reads a partition once for different queries that read it at the same time', async () => {
      const gw = await start();
      gw.hold = true;
      const perMinute = (name: string) =>
        `series(metric: "cpu", from: ${T0}, to: ${END}, where: [{ tag: "host", in: ["web-1"] }], aggregators: [{ ${name}: { sampling: { value: 1, unit: MINUTES } } }]) { sampleSize points { value } }`;
      const answers = [gw.graphql(`{ avg: ${perMinute('avg')} }`), gw.graphql(`{ max: ${perMinute('max')} }`)];
      await expect.poll(() => gw.gateway.shared.scans.joins).toBe(1);
      gw.release();
      const [avg, max] = (await Promise.all(answers)).map((a) => a.body);
      expect(gw.calls.scans).toBe(1);
      const series = (body: Record<string, unknown>, alias: string) =>
        (body['data'] as Record<string, { sampleSize: number; points: { value: number }[] }[]>)[alias]![0]!;
      // web-1 reads i % 97 at point i: the minute of points 6m..6m+5.
      const minute = (m: number) => Array.from({ length: 6 }, (_, k) => (6 * m + k) % 97);
      expect(series(avg!, 'avg').points.map((p) => p.value)).toEqual(
        Array.from({ length: 360 }, (_, m) => minute(m).reduce((a, b) => a + b) / 6),
      );
      expect(series(max!, 'max').points.map((p) => p.value)).toEqual(
        Array.from({ length: 360 }, (_, m) => Math.max(...minute(m))),
      );
      expect([series(avg!, 'avg').sampleSize, series(max!, 'max').sampleSize]).toEqual([POINTS, POINTS]);
    });

    it('finishes the work for the clients still waiting when the one that started it leaves, and stops it when the last leaves', async () => {
      const gw = await start();
      gw.hold = true;
      const query = `{ cpu: ${avgPerMinute(T0, END)} }`;
      const leaving = new AbortController();
      const first = gw.graphql(query, leaving.signal);
      await expect.poll(() => gw.held()).toBeGreaterThan(0);
      const second = gw.graphql(query);
      await expect.poll(() => gw.gateway.shared.queries.waiting).toBe(2);
      leaving.abort();
      await expect(first).rejects.toThrow();
      await expect.poll(() => gw.gateway.shared.queries.waiting).toBe(1);
      expect(gw.scanSignals[0]?.aborted).toBe(false);
      gw.release();
      const answer = await second;
      expect(answer.status).toBe(200);
      expect((answer.body['data'] as { cpu: unknown[] }).cpu).toHaveLength(3);
      expect(gw.calls.scans).toBe(3);

      // Alone, a client that leaves stops the store's read.
      gw.hold = true;
      const alone = new AbortController();
      const lone = gw.graphql(`{ cpu: ${avgPerMinute(T0, END - 1)} }`, alone.signal);
      await expect.poll(() => gw.held()).toBeGreaterThan(0);
      const signal = gw.scanSignals.at(-1)!;
      alone.abort();
      await expect(lone).rejects.toThrow();
      await expect.poll(() => signal.aborted).toBe(true);
      gw.release();
    });

    it('holds each waiter to its own request budget: the request over it fails, the other is answered', async () => {
      // One host's six hours is 2,160 points; a request may read 4,000.
      const gw = await start({ MAX_REQUEST_POINTS_READ: '4000' });
      gw.hold = true;
      const shared = avgPerMinute(T0, END, ['web-1']);
      const greedy = gw.graphql(`{ a: ${shared} b: ${avgPerMinute(T0, END, ['web-2'])} }`);
      const modest = gw.graphql(`{ a: ${shared} }`);
      await expect.poll(() => gw.gateway.shared.queries.waiting).toBe(3);
      gw.release();
      const [over, within] = await Promise.all([greedy, modest]);
      expect(over.status).toBe(422);
      expect((over.body['errors'] as { extensions: { code: string } }[])[0]!.extensions.code).toBe('BUDGET_EXCEEDED');
      expect(within.status).toBe(200);
      expect((within.body['data'] as { a: { sampleSize: number }[] }).a[0]!.sampleSize).toBe(POINTS);
    });

    it('shows writes and deletes through GraphQL and REST at once, in ranges answered from the cache before', async () => {
      const gw = await start();
      const query = `{ cpu: ${avgPerMinute(T0, END)} }`;
      const before = await gw.graphql(query);
      const again = await gw.graphql(query);
      expect(again.body['data']).toEqual(before.body['data']);
      const web1 = (r: { body: Record<string, unknown> }) =>
        (
          r.body['data'] as {
            cpu: { host: string; sampleSize: number; points: { epochMs: number; value: number }[] }[];
          }
        ).cpu.find((s) => s.host === 'web-1');

      // A point in a minute that was cached, through GraphQL: that minute's average and the sample size change.
      await gw.graphql(
        `mutation { addPoints(series: [{ metric: "cpu", tags: [{ name: "host", value: "web-1" }], points: [{ time: ${T0 + 60_000 + 5_000}, value: 1000000 }] }]) { points } }`,
      );
      const afterWrite = web1(await gw.graphql(query))!;
      expect(afterWrite.sampleSize).toBe(POINTS + 1);
      expect(afterWrite.points[1]!.value).toBe((6 + 7 + 8 + 9 + 10 + 11 + 1_000_000) / 7);

      // Through REST: a point in another cached minute.
      const rest = await callRest(gw.url, 'POST', '/api/v1/datapoints', {
        body: [{ name: 'cpu', tags: { host: 'web-1' }, datapoints: [[T0 + 120_000 + 5_000, 2000000]] }],
      });
      expect(rest.status).toBe(204);
      expect(web1(await gw.graphql(query))!.points[2]!.value).toBe((12 + 13 + 14 + 15 + 16 + 17 + 2_000_000) / 7);

      // A REST delete of web-1's first hour, then of the whole metric.
      const deleted = await callRest(gw.url, 'POST', '/api/v1/datapoints/delete', {
        body: {
          start_absolute: T0,
          end_absolute: T0 + 3_600_000 - 1,
          metrics: [{ name: 'cpu', tags: { host: ['web-1'] } }],
        },
      });
      expect(deleted.status).toBe(204);
      const afterDelete = web1(await gw.graphql(query))!;
      expect([afterDelete.sampleSize, afterDelete.points[0]!.epochMs]).toEqual([POINTS - 360, T0 + 3_600_000]);
      expect((await callRest(gw.url, 'DELETE', '/api/v1/metric/cpu')).status).toBe(204);
      expect((await gw.graphql(query)).body['data']).toEqual({ cpu: [] });
    });

    it('keeps what save_as writes visible to the next request', async () => {
      const gw = await start();
      await gw.graphql(
        `mutation { addPoints(series: [{ metric: "cpu.copy", tags: [{ name: "host", value: "seed" }], points: [{ time: ${T0 + 1_000}, value: 1 }] }]) { points } }`,
      );
      const copy = `{ series(metric: "cpu.copy", from: ${T0}, to: ${END}, aggregators: [{ count: { sampling: { value: 1, unit: HOURS } } }]) { points { value } } }`;
      expect((await gw.graphql(copy)).body['data']).toEqual({ series: [{ points: [{ value: 1 }] }] });
      const saving = `{ series(metric: "cpu", from: ${T0}, to: ${END}, where: [{ tag: "host", in: ["web-1"] }],
          aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }, { saveAs: { metricName: "cpu.copy" } }]) { sampleSize } }`;
      expect((await gw.graphql(saving)).status).toBe(200);
      // The seed's hour was kept by the cache; it must now count the 60 saved averages too.
      expect((await gw.graphql(copy)).body['data']).toEqual({
        series: [{ points: [61, 60, 60, 60, 60, 60].map((value) => ({ value })) }],
      });
    });

    it('says in the statistics, the log line and /metrics what the cache answered', async () => {
      const gw = await start();
      const query = `{ cpu: ${avgPerMinute(T0 + 30_000, END)} }`;
      const stats = async () => {
        const { body } = await gw.graphql(query);
        return (body['extensions'] as { statistics: { queries: { pointsRead: number; cache: unknown }[] } }).statistics
          .queries[0]!;
      };
      const cold = await stats();
      const warm = await stats();
      const cached = env['CACHE_MAX_BYTES'] !== '0';
      // 359 whole minutes after the first half minute, for three hosts; the half minute is read each time.
      expect(cold).toMatchObject({
        pointsRead: 3 * (POINTS - 3),
        cache: { hits: 0, misses: cached ? 3 * 359 : 0, cachedPoints: 0 },
      });
      expect(warm).toMatchObject({
        pointsRead: cached ? 3 * 3 : 3 * (POINTS - 3),
        cache: { hits: cached ? 3 * 359 : 0, misses: 0, cachedPoints: cached ? 3 * 359 * 6 : 0 },
      });
      // REST spells the query its own way (another key): asked twice, its log line tells the same story.
      const body = {
        start_absolute: T0 + 30_000,
        end_absolute: END,
        metrics: [
          {
            name: 'cpu',
            group_by: [{ name: 'tag', tags: ['host'] }],
            aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'minutes' } }],
          },
        ],
      };
      for (let i = 0; i < 2; i++)
        expect((await callRest(gw.url, 'POST', '/api/v1/datapoints/query', { body })).json).toMatchObject({
          queries: [{ sample_size: 3 * (POINTS - 3) }],
        });
      const lines = gw.lines
        .filter((l) => l.includes('"route":"/api/v1/datapoints/query"'))
        .map((l) => JSON.parse(l) as { statistics: { queries: { pointsRead: number; cache: unknown }[] } });
      expect(lines.map((l) => l.statistics.queries[0])).toMatchObject([
        { pointsRead: 3 * (POINTS - 3), cache: { hits: 0, misses: cached ? 3 * 359 : 0, cachedPoints: 0 } },
        {
          pointsRead: cached ? 3 * 3 : 3 * (POINTS - 3),
          cache: { hits: cached ? 3 * 359 : 0, misses: 0, cachedPoints: cached ? 3 * 359 * 6 : 0 },
        },
      ]);
      const metrics = await (await fetch(`${gw.url}/metrics`)).text();
      expect(metrics).toContain(`kairograph_cache_hits_total ${cached ? 2 * 3 * 359 : 0}\n`);
      expect(metrics).toContain(`kairograph_cache_misses_total ${cached ? 2 * 3 * 359 : 0}\n`);
      expect(metrics).toContain(`kairograph_cache_entries ${cached ? 2 * 3 : 0}\n`);
    });
  });
}
