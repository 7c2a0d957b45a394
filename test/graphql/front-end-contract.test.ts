/**
 * What a front-end developer meets first, over HTTP: every description of schema.graphql in introspection (GraphiQL's
 * Docs pane, Grafana's editors), paged metadata that says when there is more, and the renamed fields beside the old.
 */
import { getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

let store: EmbeddedStore;
let gw: TestGateway;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  const series = ['a', 'b', 'c', 'd', 'e'].map((host, i) => ({
    metric: `m${i}`,
    tags: { host },
    type: 'double' as const,
    ttlSeconds: 0,
    timestamps: [1000],
    values: [i],
  }));
  const hosts = ['web-05', 'web-01', 'web-04', 'web-02', 'web-03'].map((host) => ({
    metric: 'cpu',
    tags: { host },
    type: 'double' as const,
    ttlSeconds: 0,
    timestamps: [1000, 2000],
    values: [1, 2],
  }));
  await store.write({ series: [...series, ...hosts] });
  gw = await startGateway(store);
});
afterAll(async () => {
  await gw.close();
  await store.close();
  removeTempDirs();
});

describe('introspection', () => {
  it('carries a description for every type, field, argument, input field, enum value and directive', async () => {
    const response = await gw.graphql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    expect(response.status).toBe(200);
    const schema = (response.body.data as unknown as IntrospectionQuery).__schema;
    const missing: string[] = [];
    const check = (where: string, description: string | null | undefined) => {
      if (description === null || description === undefined || description.trim() === '') missing.push(where);
    };
    // Introspection answers null for the lists a kind does not have (an enum's fields).
    type Walked = {
      name: string;
      description?: string | null;
      fields?: Walked[] | null;
      args?: Walked[] | null;
      inputFields?: Walked[] | null;
      enumValues?: Walked[] | null;
    };
    let counted = 0;
    for (const type of schema.types as unknown as Walked[]) {
      check(type.name, type.description);
      // graphql-js's own introspection types describe themselves but not all their fields: not ours to write.
      if (type.name.startsWith('__')) continue;
      for (const field of [...(type.fields ?? []), ...(type.inputFields ?? []), ...(type.enumValues ?? [])]) {
        check(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args ?? []) check(`${type.name}.${field.name}(${arg.name})`, arg.description);
        counted++;
      }
    }
    expect(counted).toBeGreaterThan(200);
    for (const directive of schema.directives) {
      check(`@${directive.name}`, directive.description);
      for (const arg of directive.args) check(`@${directive.name}(${arg.name})`, arg.description);
    }
    expect(missing).toEqual([]);
    // The walk reached what the issue named (scalars lost theirs to the resolvers' GraphQLScalarType instances).
    const byName = new Map(schema.types.map((type) => [type.name, type]));
    expect(byName.get('Time')?.description).toContain('date-math');
    expect(byName.get('Long')?.description).toContain('64-bit integer');
    expect(byName.get('PointValue')?.description).toContain('point value');
  });

  it('deprecates `points` in favour of `rawSeries`, which answers the same', async () => {
    const response = await gw.graphql(
      '{ __type(name: "Query") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }',
    );
    const fields = (
      response.body.data as {
        __type: { fields: { name: string; isDeprecated: boolean; deprecationReason: string | null }[] };
      }
    ).__type.fields;
    expect(fields.find((f) => f.name === 'points')).toEqual({
      name: 'points',
      isDeprecated: true,
      deprecationReason: 'Use `rawSeries`: the same arguments and answer.',
    });
    const both = await gw.graphql(`{
      old: points(metric: "cpu", from: 0, to: 5000, where: [{ tag: "host", eq: "web-01" }]) { tags { name values } points { time epochMs value } }
      new: rawSeries(metric: "cpu", from: 0, to: 5000, where: [{ tag: "host", eq: "web-01" }]) { tags { name values } points { time epochMs value } }
    }`);
    expect(both.body.errors).toBeUndefined();
    const data = both.body.data as { old: unknown; new: unknown };
    expect(data.new).toEqual(data.old);
    expect(data.new).toEqual([
      {
        tags: [{ name: 'host', values: ['web-01'] }],
        points: [
          { time: '1970-01-01T00:00:01.000Z', epochMs: 1000, value: 1 },
          { time: '1970-01-01T00:00:02.000Z', epochMs: 2000, value: 2 },
        ],
      },
    ]);
  });

  it('describes the contract, not the execution schema, in a query that also reads points', async () => {
    // Points are built whole against an execution schema (src/graphql/point-answers.ts) that types them as one value;
    // introspection beside them, directly or through a fragment, must still see schema.graphql's types.
    const query = `query Mixed($on: Boolean!) {
      first: rawSeries(metric: "cpu", from: 0, to: 5000, where: [{ tag: "host", eq: "web-02" }]) { points { epochMs } columns { value } }
      ...Types
      series: __type(name: "Series") { fields { name type { kind ofType { kind ofType { kind ofType { name } } } } } }
      skipped: __typename @include(if: $on)
      last: rawSeries(metric: "cpu", from: 0, to: 1500, where: [{ tag: "host", eq: "web-03" }]) { points { value } }
    }
    fragment Types on Query { __schema { types { name } } }`;
    const mixed = await gw.graphql(query, { on: false });
    expect(mixed.status).toBe(200);
    expect(mixed.body.errors).toBeUndefined();
    const data = mixed.body.data as Record<string, unknown> & {
      __schema: { types: { name: string }[] };
      series: { fields: { name: string; type: unknown }[] };
    };
    expect(Object.keys(data)).toEqual(['first', '__schema', 'series', 'last']);
    expect(data['first']).toEqual([{ points: [{ epochMs: 1000 }, { epochMs: 2000 }], columns: { value: [1, 2] } }]);
    expect(data['last']).toEqual([{ points: [{ value: 1 }] }]);
    const names = data.__schema.types.map((type) => type.name);
    expect(names).toContain('Point');
    expect(names).not.toContain('BuiltList');
    expect(data.series.fields.find((field) => field.name === 'points')!.type).toEqual({
      kind: 'NON_NULL',
      ofType: { kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name: 'Point' } } },
    });
    // The same introspection alone answers the same; bad variables fail before either part runs.
    const alone = await gw.graphql(
      '{ ...Types series: __type(name: "Series") { fields { name type { kind ofType { kind ofType { kind ofType { name } } } } } } } fragment Types on Query { __schema { types { name } } }',
    );
    expect(alone.body.data).toEqual({ __schema: data.__schema, series: data.series });
    const badVariables = await gw.graphql(query, { on: 'yes' });
    expect(badVariables.status).toBe(400);
    expect(badVariables.body.data).toBeUndefined();
    expect(badVariables.body.errors?.[0]?.message).toBe(
      'Variable "$on" got invalid value "yes"; Boolean cannot represent a non boolean value: "yes"',
    );
  });
});

type Page = { items: unknown[]; hasMore: boolean; nextCursor: string | null };

/** Follows nextCursor from the first page to the last, collecting every page. */
async function allPages(field: string, args: string, selection: string, first: number): Promise<Page[]> {
  const pages: Page[] = [];
  let after: string | null = null;
  do {
    const response = await gw.graphql(
      `query ($after: String) { page: ${field}(${args}, first: ${first}, after: $after) { items ${selection} hasMore nextCursor } }`,
      { after },
    );
    expect(response.body.errors).toBeUndefined();
    const page = (response.body.data as { page: Page }).page;
    pages.push(page);
    after = page.nextCursor;
  } while (after !== null);
  return pages;
}

describe('paged metadata', () => {
  it('pages metric names with a cursor, saying when more follow', async () => {
    const pages = await allPages('metricNamesPage', 'prefix: "m"', '', 2);
    expect(pages.map((p) => [p.items, p.hasMore])).toEqual([
      [['m0', 'm1'], true],
      [['m2', 'm3'], true],
      [['m4'], false],
    ]);
    expect(pages.at(-1)!.nextCursor).toBeNull();
  });

  it('pages tag values and series keys the same way', async () => {
    const values = await allPages('tagValuesPage', 'metric: "cpu", tag: "host", from: 0, to: 5000', '', 3);
    expect(values.map((p) => [p.items, p.hasMore])).toEqual([
      [['web-01', 'web-02', 'web-03'], true],
      [['web-04', 'web-05'], false],
    ]);
    const keys = await allPages('seriesKeysPage', 'metric: "cpu", from: 0, to: 5000', '{ host: tag(name: "host") }', 2);
    expect(keys.flatMap((p) => p.items)).toEqual(
      ['web-01', 'web-02', 'web-03', 'web-04', 'web-05'].map((host) => ({ host })),
    );
    expect(keys.map((p) => p.hasMore)).toEqual([true, true, false]);
  });

  it('answers a page that ends exactly at the last item with hasMore false', async () => {
    const [only] = await allPages('tagValuesPage', 'metric: "cpu", tag: "host", from: 0, to: 5000', '', 5);
    expect(only).toEqual({
      items: ['web-01', 'web-02', 'web-03', 'web-04', 'web-05'],
      hasMore: false,
      nextCursor: null,
    });
  });

  it('refuses a page size out of range and a cursor it never gave, naming the argument', async () => {
    const big = await gw.graphql('{ metricNamesPage(first: 10001) { items } }');
    expect(big.status).toBe(400);
    expect(big.body.errors?.[0]).toMatchObject({
      message: 'first must be an integer from 1 to 10000 (got 10001)',
      extensions: { code: 'BAD_USER_INPUT', field: 'first' },
    });
    const bad = await gw.graphql('{ metricNamesPage(after: "not a cursor!") { items } }');
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'after' } });
  });

  it('keeps metricNames as it was, and `limit: 0` still lists every name', async () => {
    const response = await gw.graphql('{ two: metricNames(prefix: "m", limit: 2) all: metricNames(limit: 0) }');
    expect(response.body.data).toEqual({ two: ['m0', 'm1'], all: ['cpu', 'm0', 'm1', 'm2', 'm3', 'm4'] });
  });
});

describe("Grafana's times", () => {
  it('takes date math with rounding in from and to, and rounds `to` up: from now/d to now/d is the whole day', async () => {
    const response = await gw.graphql(`{
      today: series(metric: "cpu", from: "now/d", to: "now/d", aggregators: [{ count: { sampling: { value: 1, unit: DAYS } } }]) { points { time } }
      yesterdayInBerlin: series(metric: "cpu", from: "now-1d/d", to: "now-1d/d", timeZone: "Europe/Berlin") { name }
      thisWeek: rawSeries(metric: "cpu", from: "now/w", to: "now") { name }
      lastMonth: tagValues(metric: "cpu", tag: "host", from: "now-1M/M", to: "now-1M/M")
    }`);
    expect(response.body.errors).toBeUndefined();
    expect(response.status).toBe(200);
  });

  it('refuses a 10-digit epoch as seconds, and a zone it cannot read before reading any time in it', async () => {
    const seconds = await gw.graphql('{ rawSeries(metric: "cpu", from: 1714557600) { name } }');
    expect(seconds.status).toBe(400);
    expect(seconds.body.errors?.[0]).toMatchObject({
      message:
        'from looks like epoch seconds (2024-05-01T10:00:00.000Z as seconds): send epoch milliseconds (1714557600000), or ISO-8601 text for a time in the first months of 1970 (got 1714557600)',
      extensions: { code: 'BAD_USER_INPUT', field: 'from' },
    });
    const zone = await gw.graphql('{ series(metric: "cpu", from: "now/d", timeZone: "Mars/Olympus") { name } }');
    expect(zone.status).toBe(400);
    expect(zone.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'timeZone' } });
  });
});
