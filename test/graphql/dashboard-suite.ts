/**
 * Dashboards over GraphQL, written once and run against every store: the request shapes Grafana's GraphQL plugins
 * really send (fifemon: query text only, literal epoch-ms numbers; Wild: variables from/to/interval_ms plus the
 * undeclared maxDataPoints and refId), aggregation and group-bys, statistics, per-request batching of index reads,
 * budgets and the errors clients get.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

/** Opens a fresh, empty store with 3-week rows (or `rowWidth`); the suite closes it. */
export type DashboardStoreFactory = (options?: { rowWidth?: number }) => Promise<Store>;

/** 2024-05-01T10:00:00Z, a minute boundary. */
const T0 = 1_714_557_600_000;
const STEP = 10_000;
const POINTS = 18;
const END = T0 + POINTS * STEP - 1;

/** web-1 reads 0, 1, 2, ... every 10 s for 3 minutes; web-2 reads 100, 101, ...; web-3 (dc us) 1000, 1001, ... */
async function seed(gw: TestGateway): Promise<void> {
  const host = (name: string, dc: string, base: number) => ({
    metric: 'sys.cpu.load',
    tags: [
      { name: 'host', value: name },
      { name: 'dc', value: dc },
    ],
    points: Array.from({ length: POINTS }, (_, i) => ({ time: T0 + i * STEP, value: base + i })),
  });
  const written = await gw.graphql(
    `mutation Seed($series: [SeriesPointsInput!]!) { addPoints(series: $series) { points } }`,
    {
      series: [host('web-1', 'eu', 0), host('web-2', 'eu', 100), host('web-3', 'us', 1000)],
    },
  );
  expect(written.body).toEqual({ data: { addPoints: { points: 3 * POINTS } } });
}

const iso = (ms: number) => new Date(ms).toISOString();
const MINUTES = [T0, T0 + 60_000, T0 + 120_000];

export function describeDashboardQueries(name: string, create: DashboardStoreFactory): void {
  describe(`dashboards over GraphQL (${name} store)`, () => {
    let store: Store;
    let gw: TestGateway;
    beforeAll(async () => {
      store = await create();
      gw = await startGateway(store);
      await seed(gw);
    });
    afterAll(async () => {
      await gw.close();
      await store.close();
    });

    it("answers fifemon's request: query text only, literal epoch ms, one row per point", async () => {
      // What the plugin posts after Grafana replaced $__from, $__to and $__interval_ms in the text.
      const response = await gw.post({
        query: `query {
  rows: rows(metric: "sys.cpu.load", from: ${T0}, to: ${END}, where: [{ tag: "dc", eq: "eu" }], groupBy: { tags: ["host"] },
             aggregators: [{ avg: { sampling: { value: 60000, unit: MILLISECONDS } } }]) {
    Time: time
    value
    host: tag(name: "host")
  }
}`,
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        data: {
          rows: [
            ...[2.5, 8.5, 14.5].map((value, i) => ({ Time: iso(MINUTES[i]!), value, host: 'web-1' })),
            ...[102.5, 108.5, 114.5].map((value, i) => ({ Time: iso(MINUTES[i]!), value, host: 'web-2' })),
          ],
        },
      });
    });

    it("answers Wild's request: declared from/to/interval_ms, undeclared maxDataPoints and refId", async () => {
      const response = await gw.post({
        query: `query ($from: Time!, $to: Time!, $interval_ms: Int!) {
  series(metric: "sys.cpu.load", from: $from, to: $to, groupBy: { tags: ["dc"] },
         aggregators: [{ max: { sampling: { value: $interval_ms, unit: MILLISECONDS } } }]) {
    dc: tag(name: "dc")
    varyingTags
    sampleSize
    points { t: epochMs value }
  }
}`,
        variables: { from: T0, to: END, interval_ms: 60_000, maxDataPoints: 1811, refId: 'A' },
        operationName: null,
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        data: {
          series: [
            {
              dc: 'eu',
              varyingTags: ['host'],
              sampleSize: 2 * POINTS,
              points: [105, 111, 117].map((value, i) => ({ t: MINUTES[i], value })),
            },
            {
              dc: 'us',
              varyingTags: [],
              sampleSize: POINTS,
              points: [1005, 1011, 1017].map((value, i) => ({ t: MINUTES[i], value })),
            },
          ],
        },
      });
    });

    it('runs an ordered pipeline with time and value group-bys and reports their keys', async () => {
      const response = await gw.graphql(`{
  series(metric: "sys.cpu.load", from: ${T0}, to: ${END}, where: [{ tag: "host", eq: "web-1" }],
         groupBy: { time: { rangeSize: { value: 1, unit: MINUTES }, groupCount: 2 }, valueRangeSize: 10 },
         aggregators: [{ scale: { factor: 2 } }, { sum: { sampling: { value: 1, unit: HOURS } } }]) {
    group { kind groupNumber valueType tags { name } }
    points { time value }
  }
}`);
      // Minutes 0 and 2 share time group 0; values 0..9 are value group 0 and 10..17 value group 1.
      expect(response.body).toEqual({
        data: {
          series: [
            {
              group: [
                { kind: 'TIME', groupNumber: 0, valueType: null, tags: null },
                { kind: 'VALUE', groupNumber: 0, valueType: null, tags: null },
                { kind: 'TYPE', groupNumber: null, valueType: 'number', tags: null },
              ],
              points: [{ time: iso(T0), value: 30 }],
            },
            {
              group: [
                { kind: 'TIME', groupNumber: 1, valueType: null, tags: null },
                { kind: 'VALUE', groupNumber: 0, valueType: null, tags: null },
                { kind: 'TYPE', groupNumber: null, valueType: 'number', tags: null },
              ],
              points: [{ time: iso(T0 + 60_000), value: 60 }],
            },
            {
              group: [
                { kind: 'TIME', groupNumber: 1, valueType: null, tags: null },
                { kind: 'VALUE', groupNumber: 1, valueType: null, tags: null },
                { kind: 'TYPE', groupNumber: null, valueType: 'number', tags: null },
              ],
              points: [{ time: iso(T0 + 100_000), value: 42 }],
            },
            {
              group: [
                { kind: 'TIME', groupNumber: 0, valueType: null, tags: null },
                { kind: 'VALUE', groupNumber: 1, valueType: null, tags: null },
                { kind: 'TYPE', groupNumber: null, valueType: 'number', tags: null },
              ],
              points: [{ time: iso(T0 + 120_000), value: 174 }],
            },
          ],
        },
      });
    });

    it('gives every series the same timestamps with fill, and names them', async () => {
      const response = await gw.graphql(`{
  series(metric: "sys.cpu.load", from: ${T0}, to: ${END}, name: "load", fill: PREVIOUS, groupBy: { tags: ["host"] },
         where: [{ tag: "host", in: ["web-1", "web-3"] }], limit: 7, order: DESC) {
    name
    host: tag(name: "host")
    points { epochMs value }
  }
}`);
      // A tag group-by splits series before the merge, so limit keeps each host's 7 latest points (as KairosDB).
      const latest = Array.from({ length: 7 }, (_, i) => POINTS - 1 - i);
      expect(response.body.data).toEqual({
        series: [
          { name: 'load', host: 'web-1', points: latest.map((i) => ({ epochMs: T0 + i * STEP, value: i })) },
          { name: 'load', host: 'web-3', points: latest.map((i) => ({ epochMs: T0 + i * STEP, value: 1000 + i })) },
        ],
      });
    });

    it('answers several aliases on one metric with one row_keys read per row time, and reports it', async () => {
      const aliases = ['a', 'b', 'c', 'd'].map(
        (
          alias,
          i,
        ) => `${alias}: series(metric: "sys.cpu.load", from: ${T0}, to: ${END}, where: [{ tag: "host", eq: "web-${(i % 3) + 1}" }],
          aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }]) { points { value } }`,
      );
      const response = await gw.graphql(
        `{ ${aliases.join('\n')}\n hosts: tagValues(metric: "sys.cpu.load", tag: "host", from: ${T0}, to: ${END}) }`,
      );
      expect(response.body.data!['hosts']).toEqual(['web-1', 'web-2', 'web-3']);
      const statistics = response.extensions!['statistics'] as {
        storeCalls: Record<string, number>;
        queries: Record<string, unknown>[];
      };
      // Every series of the metric sits in one 3-week row period: one row time, so one row_keys read for all five
      // fields; they share a range too, so the row-time and legacy-index reads are made once as well. Aliases a and d
      // ask the same query: d waits for a's run and reads nothing (src/sharing/shared-queries.ts).
      expect(statistics.storeCalls).toMatchObject({ rowTimes: 1, rowKeys: 1, legacyRowKeys: 1, scans: 3 });
      // Queries are listed as they start, after the request's admission; sorted here, the test does not depend on it.
      const byPath = [...statistics.queries].sort((x, y) => String(x['path']).localeCompare(String(y['path'])));
      expect(
        byPath.map((q) => [
          q['path'],
          q['rowTimes'],
          q['seriesMatched'],
          q['partitionsRead'],
          q['pointsRead'],
          q['pointsReturned'],
          q['shared'],
        ]),
      ).toEqual([
        ['a', 1, 1, 1, POINTS, 3, false],
        ['b', 1, 1, 1, POINTS, 3, false],
        ['c', 1, 1, 1, POINTS, 3, false],
        ['d', 0, 0, 0, 0, 0, true],
      ]);
      expect(response.body.data!['d']).toEqual(response.body.data!['a']);
      // The naive way, one request per alias as KairosDB answers one metric query at a time, reads the index each time.
      let naive = 0;
      for (const alias of aliases) {
        const one = await gw.graphql(`{ ${alias} }`);
        naive += (one.extensions!['statistics'] as { storeCalls: { rowKeys: number } }).storeCalls.rowKeys;
      }
      expect(naive).toBe(4);
    });

    it("names GraphQL's argument and the value in invalid pipelines, never KairosDB's wire name", async () => {
      // The engine validates in KairosDB's names (aggregators[1].time_zone); GraphQL clients must read their own.
      const cases: [string, string, string][] = [
        [
          '{ percentile: { percentile: 1.5 } }',
          'aggregators[1].percentile.percentile',
          'must be greater than 0 and at most 1 (got 1.5)',
        ],
        ['{ div: { divisor: 0 } }', 'aggregators[1].div.divisor', 'must not be zero (got 0)'],
        [
          '{ avg: { timeZone: "Mars/Olympus" } }',
          'aggregators[1].avg.timeZone',
          'must be an IANA time zone such as Europe/Berlin, or an offset such as +05:30 (got "Mars/Olympus")',
        ],
        [
          '{ leastSquares: { sampling: { value: 0, unit: MINUTES } } }',
          'aggregators[1].leastSquares.sampling.value',
          'must be a whole number from 1 to 2147483647 (got 0)',
        ],
        ['{ saveAs: { metricName: "" } }', 'aggregators[1].saveAs.metricName', 'must not be empty (got "")'],
        [
          '{ saveAs: { metricName: "copy", tags: [{ name: "a", value: "1" }, { name: "saved_from", value: "x" }] } }',
          'aggregators[1].saveAs.tags[1]',
          'clashes with the saved_from tag that the aggregator adds (got "x")',
        ],
        ['{ sma: { size: 0 } }', 'aggregators[1].sma.size', 'must be a whole number from 1 to 1000000 (got 0)'],
      ];
      for (const [aggregator, field, reason] of cases) {
        const response = await gw.graphql(
          `{ series(metric: "sys.cpu.load", from: ${T0}, aggregators: [{ count: {} }, ${aggregator}]) { name } }`,
        );
        expect(response.status, aggregator).toBe(400);
        expect(response.body.errors![0]!.extensions, aggregator).toEqual({ code: 'BAD_USER_INPUT', field });
        expect(response.body.errors![0]!.message, aggregator).toBe(`${field} ${reason}`);
      }
      const afterGaps = await gw.graphql(
        `{ series(metric: "sys.cpu.load", from: ${T0}, aggregators: [{ gaps: {} }, { leastSquares: {} }]) { name } }`,
      );
      expect(afterGaps.body.errors![0]!.message).toBe(
        'aggregators[1].leastSquares cannot follow gaps (aggregators[0].gaps): it would read the null points gaps adds (got "leastSquares")',
      );
      const unknown = await gw.graphql(`{ series(metric: "m", from: 0, aggregators: [{ median: {} }]) { name } }`);
      expect(unknown.body.errors![0]!.message).toBe(
        'Field "median" is not defined by type "AggregatorInput". Did you mean "min"?',
      );
      const two = await gw.graphql(`{ series(metric: "m", from: 0, aggregators: [{ sum: {}, max: {} }]) { name } }`);
      expect(two.body.errors![0]!.message).toBe('OneOf Input Object "AggregatorInput" must specify exactly one key.');
      const badUnit = await gw.graphql(
        `{ series(metric: "m", from: 0, aggregators: [{ rate: { unit: FORTNIGHTS } }]) { name } }`,
      );
      expect(badUnit.body.errors![0]!.message).toBe('Value "FORTNIGHTS" does not exist in "TimeUnit" enum.');
    });

    it('rejects a rate over points at equal timestamps, naming the aggregator', async () => {
      await gw.graphql(`mutation { addPoints(series: [
        { metric: "dup.rate", tags: [{ name: "host", value: "a" }], points: [{ time: ${T0}, value: 1 }] },
        { metric: "dup.rate", tags: [{ name: "host", value: "b" }], points: [{ time: ${T0}, value: 2 }] }]) { points } }`);
      const response = await gw.graphql(
        `{ series(metric: "dup.rate", from: ${T0}, to: ${END}, aggregators: [{ rate: { unit: SECONDS } }]) { name } }`,
      );
      expect(response.status).toBe(400);
      expect(response.body.errors![0]!.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'aggregators[0].rate' });
    });

    it("names the query's own arguments and group-bys as GraphQL spells them", async () => {
      const cases: [string, string, string][] = [
        [
          'timeZone: "Mars/Olympus"',
          'timeZone',
          'must be an IANA time zone such as Europe/Berlin, or an offset such as +05:30 (got "Mars/Olympus")',
        ],
        ['where: [{ tag: "" }]', 'where[0].tag', 'must not be empty (got "")'],
        // The query model keeps eq as in[0] and notEq as notIn[0]; the client wrote eq and notEq.
        [
          'where: [{ tag: "host", eq: "web-1" }, { tag: "dc", eq: "", in: ["eu"] }]',
          'where[1].eq',
          'must not be empty (got "")',
        ],
        ['where: [{ tag: "dc", eq: "eu", in: ["us", ""] }]', 'where[0].in[1]', 'must not be empty (got "")'],
        ['where: [{ tag: "dc", notEq: "" }]', 'where[0].notEq', 'must not be empty (got "")'],
        ['groupBy: { tags: ["host", ""] }', 'groupBy.tags[1]', 'must be a non-empty tag name (got "")'],
        [
          'groupBy: { tags: ["host"], time: { rangeSize: { value: 0, unit: HOURS }, groupCount: 24 } }',
          'groupBy.time.rangeSize.value',
          'must be a whole number from 1 to 2147483647 (got 0)',
        ],
        [
          'groupBy: { time: { rangeSize: { value: 1, unit: HOURS }, groupCount: 0 } }',
          'groupBy.time.groupCount',
          'must be a whole number from 1 to 2147483647 (got 0)',
        ],
        [
          'groupBy: { valueRangeSize: 0 }',
          'groupBy.valueRangeSize',
          'must be a whole number from 1 to 2147483647 (got 0)',
        ],
        [
          'groupBy: { tags: ["host"], bins: [1, 5, 3] }',
          'groupBy.bins[2]',
          'must be greater than the bin before it (5) (got 3)',
        ],
      ];
      for (const [argument, field, reason] of cases) {
        const response = await gw.graphql(`{ series(metric: "sys.cpu.load", from: ${T0}, ${argument}) { name } }`);
        expect(response.status, argument).toBe(400);
        expect(response.body.errors![0]!.extensions, argument).toEqual({ code: 'BAD_USER_INPUT', field });
        expect(response.body.errors![0]!.message, argument).toBe(`${field} ${reason}`);
      }
    });
  });
}

/** Budgets and time limits surface as GraphQL errors with codes; a fresh gateway each, with its own limits. */
export function describeDashboardLimits(name: string, create: DashboardStoreFactory): void {
  describe(`query budgets over GraphQL (${name} store)`, () => {
    let store: Store;
    let gw: TestGateway | undefined;
    beforeAll(async () => {
      store = await create();
      const seeder = await startGateway(store);
      await seed(seeder);
      await seeder.close();
    });
    afterEach(async () => {
      await gw?.close();
    });
    afterAll(async () => {
      await store.close();
    });

    it.each([
      ['MAX_POINTS_READ', '20', 'query exceeded its points read budget of 20 (MAX_POINTS_READ)'],
      ['MAX_QUERY_SERIES', '2', 'query exceeded its series budget of 2 (MAX_QUERY_SERIES)'],
      ['MAX_QUERY_POINTS', '5', 'query exceeded its points returned budget of 5 (MAX_QUERY_POINTS)'],
    ])('fails a query over %s with BUDGET_EXCEEDED', async (setting, value, message) => {
      gw = await startGateway(store, { [setting]: value });
      const response = await gw.graphql(
        `{ series(metric: "sys.cpu.load", from: ${T0}, to: ${END}, groupBy: { tags: ["host"] }) { points { value } } }`,
      );
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        data: null,
        errors: [
          { message, locations: [{ line: 1, column: 3 }], path: ['series'], extensions: { code: 'BUDGET_EXCEEDED' } },
        ],
      });
    });

    // Each alias reads and returns 54 points, within every budget of one query; two of them are over the request's.
    const twoAliases = `{ a: series(metric: "sys.cpu.load", from: ${T0}, to: ${END}, groupBy: { tags: ["host"] }) { points { value } }
  b: series(metric: "sys.cpu.load", from: ${T0}, to: ${END}, groupBy: { tags: ["host"] }) { points { value } } }`;
    it.each([
      ['MAX_REQUEST_POINTS_READ', '100', 'request exceeded its points read budget of 100 (MAX_REQUEST_POINTS_READ)'],
      ['MAX_REQUEST_POINTS', '100', 'request exceeded its points returned budget of 100 (MAX_REQUEST_POINTS)'],
    ])('fails a request whose aliases together go over %s, and no alias answers', async (setting, value, message) => {
      gw = await startGateway(store, { [setting]: value });
      const alone = await gw.graphql(
        `{ a: series(metric: "sys.cpu.load", from: ${T0}, to: ${END}, groupBy: { tags: ["host"] }) { points { value } } }`,
      );
      expect(alone.status).toBe(200);
      const response = await gw.graphql(twoAliases);
      expect(response.status).toBe(422);
      expect(response.body.data).toBeNull();
      expect(response.body.errors!.length).toBeGreaterThan(0);
      for (const error of response.body.errors!)
        expect(error).toMatchObject({ message, extensions: { code: 'BUDGET_EXCEEDED' } });
    });

    it('fails a request whose answer is over MAX_RESPONSE_BYTES, with the statistics of what it read', async () => {
      gw = await startGateway(store, { MAX_RESPONSE_BYTES: '1024' });
      const small = await gw.graphql(
        `{ series(metric: "sys.cpu.load", from: ${T0}, to: ${END}, aggregators: [{ count: { sampling: { value: 1, unit: HOURS } } }]) { points { value } } }`,
      );
      expect(small.body).toEqual({ data: { series: [{ points: [{ value: 54 }] }] } });
      const response = await gw.graphql(
        `{ series(metric: "sys.cpu.load", from: ${T0}, to: ${END}, groupBy: { tags: ["host"] }) { points { time value } } }`,
      );
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        data: null,
        errors: [
          {
            message: 'request exceeded its answer bytes budget of 1024 (MAX_RESPONSE_BYTES)',
            extensions: { code: 'BUDGET_EXCEEDED' },
          },
        ],
      });
      expect(response.extensions).toMatchObject({
        statistics: { queries: [{ path: 'series', pointsRead: 54, pointsReturned: 54 }] },
      });
    });

    it('counts the points fill makes up against MAX_REQUEST_POINTS', async () => {
      // Two series on alternate timestamps: 9 points each, 18 each once filled to the other's timestamps.
      gw = await startGateway(store, { MAX_REQUEST_POINTS: '30' });
      const write = await gw.graphql(`mutation { addPoints(series: [
        { metric: "sparse", tags: [{ name: "host", value: "a" }], points: [${Array.from({ length: 9 }, (_, i) => `{ time: ${T0 + 2 * i * STEP}, value: 1 }`).join(', ')}] },
        { metric: "sparse", tags: [{ name: "host", value: "b" }], points: [${Array.from({ length: 9 }, (_, i) => `{ time: ${T0 + (2 * i + 1) * STEP}, value: 2 }`).join(', ')}] }]) { points } }`);
      expect(write.body).toEqual({ data: { addPoints: { points: 18 } } });
      const query = (fill: string) =>
        `{ series(metric: "sparse", from: ${T0}, to: ${END}, groupBy: { tags: ["host"] }, fill: ${fill}) { points { value } } }`;
      expect((await gw.graphql(query('NONE'))).status).toBe(200);
      const filled = await gw.graphql(query('NULL'));
      expect(filled.status).toBe(422);
      expect(filled.body.errors![0]!.message).toBe(
        'request exceeded its points returned budget of 30 (MAX_REQUEST_POINTS)',
      );
    });
  });
}
