/**
 * The `promql` field over real HTTP on the embedded store: the series of Prometheus's API suite (PROM_SERIES), asked
 * as instant and range queries, answered as `Series` with exact values; a range answer equal to what the source's
 * /prometheus/.../query_range answers for the same expression; Prometheus's refusals as BAD_USER_INPUT on the argument
 * they are about; warnings and infos in `extensions`; each selector a query of the request in the statistics; the
 * persisted operation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromqlChartDocument } from '../../src/generated/operations/graphql.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { PROM_SERIES, promClient } from '../prometheus-api/prometheus-suite.js';

let store: EmbeddedStore;
let g: TestGateway;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  await new KairosdbSource('writer', store).write({
    series: PROM_SERIES.map((s) => ({
      metric: s.metric,
      tags: s.tags,
      type: s.type,
      ttlSeconds: 0,
      timestamps: s.points.map(([t]) => t),
      values: s.points.map(([, v]) => v),
    })),
  });
  g = await startGateway(store);
});

afterAll(async () => {
  await g?.close();
  await store?.close();
  removeTempDirs();
});

const PROMQL = `query ($expression: String!, $from: Time, $to: Time, $step: String, $time: Time, $name: String) {
  promql(expression: $expression, from: $from, to: $to, step: $step, time: $time, name: $name) {
    name metric tags { name values } host: tag(name: "host") varyingTags group { kind } sampleSize
    points { epochMs value type text }
  }
}`;

const RATE = 'sum by (host) (rate({"prom.cpu", host=~"a|b"}[2m]))';

describe('the promql field', () => {
  it('answers a range query as Series, with the values of /query_range for the same expression', async () => {
    const got = await g.graphql(PROMQL, { expression: RATE, from: 120_000, to: 180_500, step: '30' });
    expect(got.status).toBe(200);
    const series = (host: string, values: number[]) => ({
      name: RATE,
      metric: '',
      tags: [{ name: 'host', values: [host] }],
      host,
      varyingTags: [],
      group: [],
      sampleSize: 3,
      points: values.map((value, i) => ({ epochMs: 120_000 + i * 30_000, value, type: 'DOUBLE', text: null })),
    });
    expect(got.body).toEqual({
      data: {
        promql: [
          series('a', [0.020833333333333336, 0.025, 0.025]),
          series('b', [0.16666666666666666, 0.16666666666666666, 0.16666666666666666]),
        ],
      },
    });

    const http = await promClient(g.url, 'kairosdb').post(
      '/query_range',
      `query=${encodeURIComponent(RATE)}&start=120&end=180.5&step=30`,
    );
    const { data } = http.body as {
      data: { result: { metric: Record<string, string>; values: [number, string][] }[] };
    };
    const fromHttp = data.result.map((s) => ({
      tags: Object.entries(s.metric).map(([name, value]) => ({ name, values: [value] })),
      points: s.values.map(([t, v]) => ({ epochMs: t * 1000, value: Number(v) })),
    }));
    const fromGraphql = (
      got.body.data!['promql'] as { tags: unknown; points: { epochMs: number; value: number }[] }[]
    ).map((s) => ({ tags: s.tags, points: s.points.map(({ epochMs, value }) => ({ epochMs, value })) }));
    expect(fromGraphql).toEqual(fromHttp);
  });

  it('answers an instant query: one point per series at `time`, its labels as tags, long and double alike', async () => {
    const got = await g.graphql(PROMQL, { expression: '{"prom.cpu"}', time: 200_000 });
    const series = (host: string, hostName: string, value: number) => ({
      name: 'prom.cpu',
      metric: 'prom.cpu',
      tags: [
        { name: 'host', values: [host] },
        { name: 'host.name', values: [hostName] },
      ],
      host,
      varyingTags: [],
      group: [],
      sampleSize: 1,
      points: [{ epochMs: 200_000, value, type: 'DOUBLE', text: null }],
    });
    expect(got.body).toEqual({ data: { promql: [series('a', 'alpha', 4), series('b', 'beta', 30)] } });
  });

  it('answers a range selector of an instant query with its samples, and takes `name` as every series name', async () => {
    const got = await g.graphql(PROMQL, { expression: '{"prom.cpu", host="a"}[2m]', time: 180_000, name: 'cpu' });
    expect(got.body.data).toEqual({
      promql: [
        {
          name: 'cpu',
          metric: 'prom.cpu',
          tags: [
            { name: 'host', values: ['a'] },
            { name: 'host.name', values: ['alpha'] },
          ],
          host: 'a',
          varyingTags: [],
          group: [],
          sampleSize: 2,
          points: [
            { epochMs: 120_000, value: 2.5, type: 'DOUBLE', text: null },
            { epochMs: 180_000, value: 4, type: 'DOUBLE', text: null },
          ],
        },
      ],
    });
  });

  it('answers a scalar as one series without tags, a string as one STRING point, NaN and infinities as null', async () => {
    const one = async (expression: string) =>
      ((await g.graphql(PROMQL, { expression, time: '1970-01-01T00:00:04Z' })).body.data!['promql'] as unknown[])[0];
    const scalar = (name: string, value: number | null) => ({
      name,
      metric: '',
      tags: [],
      host: null,
      varyingTags: [],
      group: [],
      sampleSize: 1,
      points: [{ epochMs: 4000, value, type: 'DOUBLE', text: null }],
    });
    expect(await one('1+1')).toEqual(scalar('1+1', 2));
    expect(await one('-1/0')).toEqual(scalar('-1/0', null));
    expect(await one('"text"')).toEqual({
      ...scalar('"text"', null),
      points: [{ epochMs: 4000, value: null, type: 'STRING', text: 'text' }],
    });
  });

  it('refuses what Prometheus refuses as BAD_USER_INPUT on `expression`, with its message', async () => {
    const got = await g.graphql(PROMQL, { expression: 'sum(', time: 0 });
    expect([got.status, got.body]).toEqual([
      400,
      {
        data: null,
        errors: [
          {
            message: 'expression is refused: 1:5: parse error: unclosed left parenthesis (got "sum(")',
            path: ['promql'],
            locations: [{ line: 2, column: 3 }],
            extensions: { code: 'BAD_USER_INPUT', field: 'expression' },
          },
        ],
      },
    ]);
    const unnamed = await g.graphql(PROMQL, { expression: '{host="a"}', time: 0 });
    expect(unnamed.body.errors?.[0]?.message).toBe(
      'expression is refused: a selector must name its metric with __name__="<name>" or __name__=~"<regular expression>" (or a metric name before its braces): series are found by metric (got "{host=\\"a\\"}")',
    );
  });

  it('names the argument of a range or an instant query that is missing, extra or out of bounds', async () => {
    const refusal = async (variables: Record<string, unknown>) => {
      const got = await g.graphql(PROMQL, { expression: '1', ...variables });
      return [got.status, got.body.errors?.[0]?.message, got.body.errors?.[0]?.extensions?.['field']];
    };
    expect(await refusal({ from: 0 })).toEqual([400, 'step is required with from (a range query) (got null)', 'step']);
    expect(await refusal({ step: '15s' })).toEqual([
      400,
      'from is required with step (a range query) (got null)',
      'from',
    ]);
    expect(await refusal({ from: 0, to: 60_000, step: '15s', time: 0 })).toEqual([
      400,
      'time is the time of an instant query: a range query takes from, to and step (got 0)',
      'time',
    ]);
    expect(await refusal({ from: 0, to: 60_000, step: '0s' })).toEqual([
      400,
      'step must be a positive duration (15s, 1m30s) or number of seconds (15, 0.5) (got "0s")',
      'step',
    ]);
    expect(await refusal({ from: 0, to: 86_400_000, step: '1s' })).toEqual([
      400,
      'step gives more than 11,000 points per series between from and to: take a longer step (got "1s")',
      'step',
    ]);
    expect(await refusal({ from: 60_000, to: 0, step: '1s' })).toEqual([
      400,
      'to must not be before from (1970-01-01T00:01:00.000Z) (got 0)',
      'to',
    ]);
  });

  it("puts Prometheus's warnings and infos in extensions, by the field's path, and its selectors in the statistics", async () => {
    const got = await g.graphql(
      `{ rates: promql(expression: ${JSON.stringify(RATE)}, from: 120000, to: 180000, step: "1m") { name }
         both: promql(expression: "{__name__=~\\"prom\\\\\\\\.(mem|text)\\"}", time: 130000) { metric } }`,
    );
    expect(got.body).toEqual({ data: { rates: [{ name: RATE }, { name: RATE }], both: [{ metric: 'prom.mem' }] } });
    expect(got.extensions?.['warnings']).toEqual([
      {
        path: 'both',
        message: 'series of "prom.text" with text values were skipped: PromQL reads long and double values only',
      },
    ]);
    expect(got.extensions?.['infos']).toEqual([
      {
        path: 'rates',
        message:
          'PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "prom.cpu" (1:21)',
      },
    ]);
    const queries = (
      got.extensions!['statistics'] as { queries: { path: string; metric: string; pointsRead: number }[] }
    ).queries;
    expect(queries.map(({ path, metric, pointsRead }) => ({ path, metric, pointsRead }))).toEqual([
      { path: 'rates.selector[0]', metric: 'prom.cpu', pointsRead: 6 },
      { path: 'both.selector[0]', metric: 'prom.mem', pointsRead: 1 },
      { path: 'both.selector[0]', metric: 'prom.text', pointsRead: 0 },
    ]);
  });

  it("holds the request's budgets: samples held (PROMQL_MAX_SAMPLES) and points answered (MAX_REQUEST_POINTS)", async () => {
    const small = await startGateway(store, { PROMQL_MAX_SAMPLES: '5', MAX_REQUEST_POINTS: '1' });
    try {
      const refusal = async (variables: Record<string, unknown>) => {
        const got = await small.graphql(PROMQL, variables);
        return [got.status, got.body.errors?.[0]?.message, got.body.errors?.[0]?.extensions?.['code']];
      };
      const overSamples = [
        422,
        'query processing would load too many samples into memory in query execution: more than PROMQL_MAX_SAMPLES (5)',
        'BUDGET_EXCEEDED',
      ];
      // Two series × three steps: six samples held.
      expect(await refusal({ expression: '{"prom.cpu"}', from: 60_000, to: 180_000, step: '1m' })).toEqual(overSamples);
      // One step, but the subquery's: two series × its 3 steps (180s, 190s, 200s), and the 6 points it keeps.
      expect(await refusal({ expression: 'max_over_time({"prom.cpu"}[30s:10s])', time: 200_000 })).toEqual(overSamples);
      expect(await refusal({ expression: '{"prom.cpu"}', time: 200_000 })).toEqual([
        422,
        'request exceeded its points returned budget of 1 (MAX_REQUEST_POINTS)',
        'BUDGET_EXCEEDED',
      ]);
    } finally {
      await small.close();
    }
  });

  it('stops an evaluation at QUERY_TIMEOUT_MS, mid-way, with QUERY_TIMEOUT', async () => {
    const timed = await startGateway(store, { QUERY_TIMEOUT_MS: '300' });
    try {
      const started = performance.now();
      // Nothing to read: its time is evaluation, seconds of it (361 steps, each summing 86,400 points).
      const got = await timed.graphql(PROMQL, {
        expression: 'sum_over_time(vector(1)[1d:1s])',
        from: 0,
        to: 3_600_000,
        step: '10s',
      });
      const ms = performance.now() - started;
      expect([got.status, got.body.errors?.[0]?.message, got.body.errors?.[0]?.extensions?.['code']]).toEqual([
        504,
        'query exceeded its time limit of 300 ms',
        'QUERY_TIMEOUT',
      ]);
      // The timer fires between the evaluation's slices; the bound leaves room for a loaded machine.
      expect(ms).toBeLessThan(1_000);
    } finally {
      await timed.close();
    }
  });

  it('answers no warnings in extensions when there are none', async () => {
    const got = await g.graphql(PROMQL, { expression: '1', time: 0 });
    expect(got.extensions).not.toHaveProperty('warnings');
    expect(got.extensions).not.toHaveProperty('infos');
  });

  it('runs as a persisted operation by its hash', async () => {
    const hash = (PromqlChartDocument as unknown as { __meta__: { hash: string } }).__meta__.hash.replace(
      /^sha256:/,
      '',
    );
    const got = await g.post({
      extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
      variables: { expression: 'max({"prom.cpu"})', from: 60_000, to: 180_000, step: '1m' },
    });
    expect(got.body).toEqual({
      data: {
        promql: [
          {
            name: 'max({"prom.cpu"})',
            metric: '',
            tags: [],
            columns: { epochMs: [60_000, 120_000, 180_000], value: [10, 20, 30] },
          },
        ],
      },
    });
  });
});
