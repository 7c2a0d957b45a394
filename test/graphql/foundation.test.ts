/**
 * GraphQL over a real HTTP server and the embedded store: what is written comes back exactly, and bad input gets
 * an error naming the field and value while nothing of the batch is written.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

afterAll(removeTempDirs);

const ADD = `mutation Add($series: [SeriesPointsInput!]!) { addPoints(series: $series) { series points } }`;
const READ = `query Read($metric: String!, $from: Time!, $to: Time, $where: [TagMatch!], $limit: Int, $order: Order) {
  points(metric: $metric, from: $from, to: $to, where: $where, limit: $limit, order: $order) {
    metric
    tags { name values }
    host: tag(name: "host")
    points { time epochMs value long text type }
  }
}`;

let store: EmbeddedStore;
let gw: TestGateway;

beforeEach(async () => {
  // A 1-second row width puts points on both sides of row boundaries.
  store = await EmbeddedStore.open({ path: tempDir(), rowWidth: 1000 });
  gw = await startGateway(store, { MAX_WRITE_POINTS: '10' });
});
afterEach(async () => {
  await gw.close();
  await store.close();
});

describe('writing then reading through GraphQL', () => {
  it('returns exactly what was written: types, strings, 64-bit longs, negative times, row boundaries', async () => {
    const written = await gw.graphql(ADD, {
      series: [
        {
          metric: 'sys.load',
          tags: [
            { name: 'host', value: 'a:b=c' },
            { name: 'dc', value: 'eu' },
          ],
          type: 'LONG',
          points: [
            { time: -1500, value: -7 },
            { time: 999, value: 1 },
            { time: '1000', value: '9223372036854775807' },
            { time: '1970-01-01T00:00:01.001Z', value: 3 },
          ],
        },
        {
          metric: 'sys.load',
          tags: [{ name: 'host', value: 'x' }],
          type: 'DOUBLE',
          points: [{ time: 5, value: 0.125 }],
        },
        {
          metric: 'sys.load',
          tags: [{ name: 'host', value: 'x' }],
          type: 'STRING',
          points: [{ time: 6, value: 'héllo\u0000 🌍' }],
        },
      ],
    });
    expect(written.body).toEqual({ data: { addPoints: { series: 3, points: 6 } } });

    const read = await gw.graphql(READ, { metric: 'sys.load', from: -10_000, to: 10_000 });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      data: {
        points: [
          {
            metric: 'sys.load',
            tags: [
              { name: 'dc', values: ['eu'] },
              { name: 'host', values: ['a:b=c'] },
            ],
            host: 'a:b=c',
            points: [
              { time: '1969-12-31T23:59:58.500Z', epochMs: -1500, value: -7, long: -7, text: null, type: 'LONG' },
              { time: '1970-01-01T00:00:00.999Z', epochMs: 999, value: 1, long: 1, text: null, type: 'LONG' },
              {
                time: '1970-01-01T00:00:01.000Z',
                epochMs: 1000,
                value: 2 ** 63,
                long: '9223372036854775807',
                text: null,
                type: 'LONG',
              },
              { time: '1970-01-01T00:00:01.001Z', epochMs: 1001, value: 3, long: 3, text: null, type: 'LONG' },
            ],
          },
          {
            metric: 'sys.load',
            tags: [{ name: 'host', values: ['x'] }],
            host: 'x',
            points: [
              { time: '1970-01-01T00:00:00.005Z', epochMs: 5, value: 0.125, long: null, text: null, type: 'DOUBLE' },
              {
                time: '1970-01-01T00:00:00.006Z',
                epochMs: 6,
                value: null,
                long: null,
                text: 'héllo\u0000 🌍',
                type: 'STRING',
              },
            ],
          },
        ],
      },
    });
    // KairosDB's row time for -1500 is -1500 - (1500 % 1000) = -2000; 999 and 1000 sit on both sides of a boundary.
    expect(await store.rowTimes('sys.load', -10_000, 10_000)).toEqual([-2000, 0, 1000]);
  });

  it('answers the same points as columns: every type, null points, and lists long enough to be built in several slices', async () => {
    const long = 20_481 + 5; // ten times point-answers.ts ITEMS_PER_CHECK and more: built across checks of the time slice
    await store.write({
      series: [
        {
          metric: 'cols',
          tags: { host: 'l' },
          type: 'long',
          ttlSeconds: 0,
          timestamps: [1, 2, 3],
          values: [-7, 9007199254740993n, 2],
        },
        {
          metric: 'cols',
          tags: { host: 's' },
          type: 'string',
          ttlSeconds: 0,
          timestamps: [1, 2],
          values: ['a', 'héllo 🌍'],
        },
        {
          metric: 'cols',
          tags: { host: 'x' },
          type: 'double',
          ttlSeconds: 0,
          timestamps: Array.from({ length: long }, (_, i) => i),
          values: Array.from({ length: long }, (_, i) => i / 4),
        },
      ],
    });
    const fields = 'time epochMs value long text imaginary type';
    const bySeries = (where: string, aggregators = '[]') =>
      gw.graphql(
        `{ series(metric: "cols", from: 0, to: ${long}, where: [{ tag: "host", eq: "${where}" }], aggregators: ${aggregators}) { points { ${fields} } columns { ${fields} } } }`,
      );
    const transposed = (points: Record<string, unknown>[]) =>
      Object.fromEntries(fields.split(' ').map((f) => [f, points.map((p) => p[f])]));

    const longs = await bySeries('l');
    expect(longs.body.data!.series).toEqual([
      {
        points: expect.any(Array),
        columns: {
          time: ['1970-01-01T00:00:00.001Z', '1970-01-01T00:00:00.002Z', '1970-01-01T00:00:00.003Z'],
          epochMs: [1, 2, 3],
          value: [-7, 9007199254740992, 2],
          long: [-7, '9007199254740993', 2],
          text: [null, null, null],
          imaginary: [null, null, null],
          type: ['LONG', 'LONG', 'LONG'],
        },
      },
    ]);
    const strings = await bySeries('s');
    expect((strings.body.data!.series as { columns: unknown }[])[0]!.columns).toEqual({
      time: ['1970-01-01T00:00:00.001Z', '1970-01-01T00:00:00.002Z'],
      epochMs: [1, 2],
      value: [null, null],
      long: [null, null],
      text: ['a', 'héllo 🌍'],
      imaginary: [null, null],
      type: ['STRING', 'STRING'],
    });
    // gaps marks the empty seconds with null points; the one-second sum ranges hold 1000 points each.
    const gaps = await bySeries(
      'x',
      '[{ sum: { sampling: { value: 1, unit: SECONDS } } }, { gaps: { sampling: { value: 1, unit: SECONDS }, startTime: -2000, endTime: 0 } }]',
    );
    const gapColumns = (gaps.body.data!.series as { columns: Record<string, unknown[]> }[])[0]!.columns;
    expect(gapColumns.epochMs!.slice(0, 3)).toEqual([-2000, -1000, 0]);
    expect(gapColumns.value!.slice(0, 3)).toEqual([null, null, 124875]);
    expect(gapColumns.type!.slice(0, 3)).toEqual([null, null, 'DOUBLE']);

    for (const answer of [longs, strings, gaps, await bySeries('x')]) {
      for (const series of answer.body.data!.series as { points: Record<string, unknown>[]; columns: unknown }[]) {
        expect(series.columns).toEqual(transposed(series.points));
      }
    }
    const raw = (await bySeries('x')).body.data!.series as { columns: { epochMs: number[]; value: number[] } }[];
    expect(raw[0]!.columns.epochMs).toHaveLength(long);
    expect(raw[0]!.columns.value[long - 1]).toBe((long - 1) / 4);
  });

  it('keeps the last write of a series and time', async () => {
    const add = (value: number) =>
      gw.graphql(ADD, {
        series: [{ metric: 'dup', tags: [{ name: 'host', value: 'a' }], type: 'LONG', points: [{ time: 100, value }] }],
      });
    await add(4);
    await add(42);
    const read = await gw.graphql(READ, { metric: 'dup', from: 0, to: 1000 });
    expect((read.body.data!.points as { points: { long: number }[] }[])[0]!.points).toEqual([
      { time: '1970-01-01T00:00:00.100Z', epochMs: 100, value: 42, long: 42, text: null, type: 'LONG' },
    ]);
  });

  it('filters by tag, limits and orders, and answers an unknown metric with nothing', async () => {
    await gw.graphql(ADD, {
      series: ['a', 'b'].map((host) => ({
        metric: 'm',
        tags: [{ name: 'host', value: host }],
        points: [1, 2, 3].map((t) => ({ time: t, value: t })),
      })),
    });
    const read = await gw.graphql(READ, {
      metric: 'm',
      from: 0,
      to: 10,
      where: [{ tag: 'host', notEq: 'a' }],
      limit: 2,
      order: 'DESC',
    });
    expect(read.body.data!.points).toEqual([
      {
        metric: 'm',
        tags: [{ name: 'host', values: ['b'] }],
        host: 'b',
        points: [3, 2].map((t) => ({
          time: new Date(t).toISOString(),
          epochMs: t,
          value: t,
          long: null,
          text: null,
          type: 'DOUBLE',
        })),
      },
    ]);
    expect((await gw.graphql(READ, { metric: 'no.such.metric', from: 0 })).body).toEqual({ data: { points: [] } });
  });

  it('lists metric names, tag names, tag values and series in a range', async () => {
    await gw.graphql(ADD, {
      series: [
        {
          metric: 'cpu',
          tags: [
            { name: 'host', value: 'a' },
            { name: 'dc', value: 'eu' },
          ],
          points: [{ time: 10, value: 1 }],
        },
        { metric: 'cpu', tags: [{ name: 'host', value: 'b' }], type: 'LONG', points: [{ time: 5000, value: 1 }] },
        { metric: 'mem', tags: [{ name: 'host', value: 'a' }], points: [{ time: 10, value: 1 }] },
      ],
    });
    const meta = await gw.graphql(`{
      metricNames
      prefixed: metricNames(prefix: "c")
      tagNames(metric: "cpu", from: 0, to: 999)
      all: tagValues(metric: "cpu", tag: "host", from: 0, to: 9999)
      inEu: tagValues(metric: "cpu", tag: "host", from: 0, to: 9999, where: [{ tag: "dc", eq: "eu" }])
      seriesKeys(metric: "cpu", from: 0, to: 9999) { metric tags { name value } dc: tag(name: "dc") type }
    }`);
    expect(meta.body).toEqual({
      data: {
        metricNames: ['cpu', 'mem'],
        prefixed: ['cpu'],
        tagNames: ['dc', 'host'],
        all: ['a', 'b'],
        inEu: ['a'],
        seriesKeys: [
          {
            metric: 'cpu',
            tags: [
              { name: 'dc', value: 'eu' },
              { name: 'host', value: 'a' },
            ],
            dc: 'eu',
            type: 'DOUBLE',
          },
          { metric: 'cpu', tags: [{ name: 'host', value: 'b' }], dc: null, type: 'LONG' },
        ],
      },
    });
  });

  it('deletes points in a range for a tag filter', async () => {
    await gw.graphql(ADD, {
      series: ['a', 'b'].map((host) => ({
        metric: 'del',
        tags: [{ name: 'host', value: host }],
        points: [10, 1500, 2500].map((t) => ({ time: t, value: t })),
      })),
    });
    const deleted = await gw.graphql(
      `mutation { deletePoints(metric: "del", from: 0, to: 1999, where: [{ tag: "host", eq: "a" }]) { series partitionsDeleted rangesDeleted } }`,
    );
    expect(deleted.body).toEqual({ data: { deletePoints: { series: 1, partitionsDeleted: 2, rangesDeleted: 0 } } });
    const read = await gw.graphql(READ, { metric: 'del', from: 0, to: 5000 });
    expect(
      (read.body.data!.points as { host: string; points: { epochMs: number }[] }[]).map((s) => [
        s.host,
        s.points.map((p) => p.epochMs),
      ]),
    ).toEqual([
      ['a', [2500]],
      ['b', [10, 1500, 2500]],
    ]);
  });
});

describe('bad input', () => {
  const badWrites: [string, unknown, string, string][] = [
    [
      'an empty metric name',
      { metric: '', tags: [{ name: 'host', value: 'a' }], points: [{ time: 1, value: 1 }] },
      'series[1].metric',
      'series[1].metric must not be empty (got "")',
    ],
    [
      'a tag with an empty value',
      {
        metric: 'm',
        tags: [
          { name: 'dc', value: 'eu' },
          { name: 'host', value: '' },
        ],
        points: [{ time: 1, value: 1 }],
      },
      'series[1].tags[1].value',
      'series[1].tags[1].value must not be empty (got "")',
    ],
    [
      'no tags',
      { metric: 'm', tags: [], points: [{ time: 1, value: 1 }] },
      'series[1].tags',
      'series[1].tags must hold at least one tag (got [])',
    ],
    [
      'a non-numeric value for a long',
      {
        metric: 'm',
        tags: [{ name: 'h', value: 'a' }],
        type: 'LONG',
        points: [
          { time: 1, value: 1 },
          { time: 2, value: 'abc' },
        ],
      },
      'series[1].points[1].value',
      'series[1].points[1].value must be an integer for type long (got "abc")',
    ],
    [
      'a fraction for a long',
      { metric: 'm', tags: [{ name: 'h', value: 'a' }], type: 'LONG', points: [{ time: 1, value: 1.5 }] },
      'series[1].points[0].value',
      'series[1].points[0].value must be an integer for type long (got 1.5)',
    ],
    [
      'an unparseable time',
      { metric: 'm', tags: [{ name: 'h', value: 'a' }], points: [{ time: 'yesterday-ish', value: 1 }] },
      'series[1].points[0].time',
      'series[1].points[0].time is not epoch milliseconds, ISO-8601 text or a relative time such as now-6h or now-1d/d (got "yesterday-ish")',
    ],
    [
      'a relative time past the representable range',
      {
        metric: 'm',
        tags: [{ name: 'h', value: 'a' }],
        points: [
          { time: 1, value: 1 },
          { time: 2, value: 2 },
          { time: 'now+99999999y', value: 3 },
        ],
      },
      'series[1].points[2].time',
      'series[1].points[2].time must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got "now+99999999y")',
    ],
    [
      'a negative ttl',
      { metric: 'm', tags: [{ name: 'h', value: 'a' }], ttl: -1, points: [{ time: 1, value: 1 }] },
      'series[1].ttl',
      'series[1].ttl must be a whole number of seconds from 0 to 630720000 (got -1)',
    ],
    [
      'an empty string value',
      {
        metric: 'm',
        tags: [{ name: 'h', value: 'a' }],
        type: 'STRING',
        points: [
          { time: 1, value: 'x' },
          { time: 2, value: '' },
        ],
      },
      'series[1].points[1].value',
      'series[1].points[1].value must not be empty (got "")',
    ],
  ];

  it.each(badWrites)(
    'rejects %s, naming the field, and writes nothing of the batch',
    async (_, bad, field, message) => {
      const good = { metric: 'good', tags: [{ name: 'host', value: 'a' }], points: [{ time: 1, value: 1 }] };
      const response = await gw.graphql(ADD, { series: [good, bad] });
      expect(response.status).toBe(400);
      expect(response.body.data).toBeNull();
      expect(response.body.errors).toEqual([
        {
          message,
          locations: [{ line: 1, column: 48 }],
          path: ['addPoints'],
          extensions: { code: 'BAD_USER_INPUT', field },
        },
      ]);
      expect(await store.metricNames()).toEqual([]);
    },
  );

  it('rejects a batch over the size limit', async () => {
    const points = Array.from({ length: 11 }, (_, i) => ({ time: i, value: i }));
    const response = await gw.graphql(ADD, { series: [{ metric: 'big', tags: [{ name: 'h', value: 'a' }], points }] });
    expect(response.status).toBe(400);
    expect(response.body.errors![0]!.message).toBe('series must hold at most 10 points in one batch (got 11)');
    expect(response.body.errors![0]!.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'series' });
    expect(await store.metricNames()).toEqual([]);
  });

  it.each([
    [
      'end before start',
      '{ points(metric: "m", from: 2000, to: 1000) { metric } }',
      'to',
      'to must not be before from (1970-01-01T00:00:02.000Z) (got 1000)',
    ],
    [
      'an unparseable time',
      '{ points(metric: "m", from: "last tuesday") { metric } }',
      'from',
      'from is not epoch milliseconds, ISO-8601 text or a relative time such as now-6h or now-1d/d (got "last tuesday")',
    ],
    [
      'a relative from past the representable range',
      '{ points(metric: "m", from: "now-99999999y") { metric } }',
      'from',
      'from must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got "now-99999999y")',
    ],
    [
      'a relative to past the representable range',
      '{ series(metric: "m", from: 0, to: "now+99999999y") { name } }',
      'to',
      'to must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got "now+99999999y")',
    ],
    [
      'an epoch-ms string past the representable range',
      '{ tagNames(metric: "m", from: "99999999999999999999") }',
      'from',
      'from must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got "99999999999999999999")',
    ],
    [
      'an aggregator time past the representable range',
      '{ series(metric: "m", from: 0, aggregators: [{ gaps: { startTime: "now-99999999y" } }]) { name } }',
      'aggregators[0].gaps.startTime',
      'aggregators[0].gaps.startTime must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got "now-99999999y")',
    ],
    [
      'a delete range past the representable range',
      'mutation { deletePoints(metric: "m", from: "now-99999999y", to: "now") { series } }',
      'from',
      'from must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got "now-99999999y")',
    ],
    [
      'an empty metric name',
      '{ points(metric: "", from: 0) { metric } }',
      'metric',
      'metric must not be empty (got "")',
    ],
    [
      'an invalid regex',
      '{ points(metric: "m", from: 0, where: [{ tag: "host", regex: "(" }]) { metric } }',
      'where[0].regex',
      'where[0].regex is not a valid regular expression (Invalid regular expression: /(/: Unterminated group) (got "(")',
    ],
    [
      'a regex with a backreference',
      String.raw`{ points(metric: "m", from: 0, where: [{ tag: "host", regex: "(a)\\1" }]) { metric } }`,
      'where[0].regex',
      String.raw`where[0].regex cannot be matched in linear time: backreferences, lookahead, lookbehind and repetition counts above 16 are not supported (got "(a)\\1")`,
    ],
    [
      'a regex with a Unicode property class',
      String.raw`{ points(metric: "m", from: 0, where: [{ tag: "host", regex: "\\p{L}+" }]) { metric } }`,
      'where[0].regex',
      String.raw`where[0].regex uses a Unicode property class (\p{...}), which is not supported (got "\\p{L}+")`,
    ],
    [
      'an empty eq in tagValues',
      '{ tagValues(metric: "m", tag: "host", where: [{ tag: "dc", eq: "" }]) }',
      'where[0].eq',
      'where[0].eq must not be empty (got "")',
    ],
    [
      'an empty notEq in deletePoints',
      'mutation { deletePoints(metric: "m", from: 0, to: 1, where: [{ tag: "dc", notEq: "", notIn: ["x"] }]) { series } }',
      'where[0].notEq',
      'where[0].notEq must not be empty (got "")',
    ],
  ])('rejects a query with %s and stays up', async (_, query, field, message) => {
    const response = await gw.graphql(query);
    expect(response.status).toBe(400);
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors![0]!.message).toBe(message);
    expect(response.body.errors![0]!.extensions).toEqual({ code: 'BAD_USER_INPUT', field });
    expect((await gw.graphql('{ metricNames }')).body).toEqual({ data: { metricNames: [] } });
  });

  it('accepts epoch ms as numbers, numeric strings and 13-digit literals, and ISO-8601 text', async () => {
    await gw.graphql(ADD, {
      series: [{ metric: 't', tags: [{ name: 'h', value: 'a' }], points: [{ time: 1714557600000, value: 1 }] }],
    });
    for (const from of ['1714557600000', '"1714557600000"', '"2024-05-01T10:00:00Z"', '"2024-05-01T12:00:00+02:00"']) {
      const response = await gw.graphql(
        `{ points(metric: "t", from: ${from}, to: 1714557600000) { points { time epochMs } } }`,
      );
      expect(response.body).toEqual({
        data: { points: [{ points: [{ time: '2024-05-01T10:00:00.000Z', epochMs: 1714557600000 }] }] },
      });
    }
  });
});

describe('metadata near negative times', () => {
  it("finds the series of KairosDB's unaligned negative rows just after a negative start", async () => {
    // Width 1000: -999 is stored in row -1998 (-999 - 999), but a start of -1001 looks up rows from
    // rowTimeOf(-1001) = -1002, so KairosDB's own lookup would miss the point although it is in the range.
    await gw.graphql(ADD, {
      series: [{ metric: 'neg', tags: [{ name: 'host', value: 'late' }], points: [{ time: -999, value: 1 }] }],
    });
    expect(await store.rowTimes('neg', -3000, 0)).toEqual([-1998]);
    const response = await gw.graphql(
      '{ tagValues(metric: "neg", tag: "host", from: -1001, to: -900) seriesKeys(metric: "neg", from: -1001, to: -900) { tag(name: "host") } }',
    );
    expect(response.body).toEqual({ data: { tagValues: ['late'], seriesKeys: [{ tag: 'late' }] } });
  });
});
