/**
 * Real KairosDB 1.3 and Kairograph on one Cassandra keyspace: what one writes through KairosDB's REST API, the other
 * reads back through its own, byte for byte the same answer. Proves the `kairosdb` project's plumbing for the
 * differential suite (test/kairosdb/kairosdb-pair.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainClient } from '../integration/cassandra-stores.js';
import type { RestResponse } from '../rest/rest-client.js';
import { openPair, sampleSizes, uniquePrefix, until, type Pair } from './kairosdb-pair.js';

/** Reference §2.1's row time: a 3-week row of KairosDB's starts here, so R - 1 lies in the row before. */
const R = 1_435_190_400_000;
const P = uniquePrefix('interop');

let pair: Pair;

beforeAll(async () => {
  pair = await openPair();
});
afterAll(async () => {
  await pair?.close();
});

/**
 * A long past 2^53 must survive both parsers, so the body is text. Three series: longs across a row boundary (tags
 * with the characters KairosDB escapes in row keys), doubles, and strings.
 */
const writeBody = (metric: string): string =>
  `[{"name": "${metric}", "tags": {"host": "a", "dc": "x:y=z"}, "datapoints": [[${R - 1}, 300], [${R}, -1], [${R + 5}, 9007199254740993]]},` +
  ` {"name": "${metric}", "tags": {"host": "b"}, "datapoints": [[${R + 1}, 1.5], [${R + 2}, -0.25]]},` +
  ` {"name": "${metric}", "tags": {"host": "c"}, "type": "string", "datapoints": [[${R + 3}, "hi"]]}]`;

/** One query per series, so each answer is one group in a fixed order. */
const queryBody = (metric: string) => ({
  start_absolute: R - 10,
  end_absolute: R + 10,
  metrics: ['a', 'b', 'c'].map((host) => ({ name: metric, tags: { host: [host] } })),
});

/** What both must answer to `queryBody`, as text: the long past 2^53 would not survive JSON.parse. */
const expectedAnswer = (metric: string): string =>
  '{"queries":[' +
  `{"sample_size":3,"results":[{"name":"${metric}","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["x:y=z"],"host":["a"]},` +
  `"values":[[${R - 1},300],[${R},-1],[${R + 5},9007199254740993]]}]},` +
  `{"sample_size":2,"results":[{"name":"${metric}","group_by":[{"name":"type","type":"number"}],"tags":{"host":["b"]},` +
  `"values":[[${R + 1},1.5],[${R + 2},-0.25]]}]},` +
  `{"sample_size":1,"results":[{"name":"${metric}","group_by":[{"name":"type","type":"text"}],"tags":{"host":["c"]},` +
  `"values":[[${R + 3},"hi"]]}]}]}`;

describe('KairosDB 1.3 and Kairograph on one keyspace', () => {
  it('run on the same keyspace and spec, whose data_points KairosDB created as Kairograph does', async () => {
    expect(await pair.store.spec()).toEqual({ unit: 'MILLISECONDS', width: 1_814_400_000 });
    const version = await pair.kairosdb.call('GET', '/api/v1/version');
    expect(version.json).toEqual({ version: expect.stringMatching(/^KairosDB 1\.3\.0-1\./) });
    // tools/kairosdb/run.sh overrides KairosDB's WITH COMPACT STORAGE, which would make the table "dense".
    const cql = await plainClient();
    try {
      const table = await cql.execute(
        'SELECT flags FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
        [pair.keyspace, 'data_points'],
        { prepare: true },
      );
      expect(table.rows.map((row) => row.get('flags'))).toEqual([['compound']]);
    } finally {
      await cql.shutdown();
    }
  });

  it('points written through KairosDB are read back identically through Kairograph', async () => {
    const metric = `${P}from_kairosdb`;
    const written = await pair.kairosdb.call('POST', '/api/v1/datapoints', { body: writeBody(metric) });
    expect(written.status).toBe(204);
    // A 204 from KairosDB means queued: its own read shows when the batch has been stored.
    const fromKairosdb = await until(
      pair.kairosdb,
      'POST',
      '/api/v1/datapoints/query',
      { body: queryBody(metric) },
      (a) => sampleSizes(a).join() === '3,2,1',
    );
    const fromKairograph = await pair.kairograph.call('POST', '/api/v1/datapoints/query', { body: queryBody(metric) });
    expect(fromKairograph.status).toBe(200);
    expect(fromKairograph.text).toBe(expectedAnswer(metric));
    expect(fromKairosdb.text).toBe(expectedAnswer(metric));
  });

  it('points written through Kairograph are read back identically through KairosDB, at once', async () => {
    const metric = `${P}from_kairograph`;
    const written = await pair.kairograph.call('POST', '/api/v1/datapoints', { body: writeBody(metric) });
    expect(written.status).toBe(204);
    // Kairograph answers 204 once Cassandra has acknowledged every statement: no waiting.
    const answers = await pair.both('POST', '/api/v1/datapoints/query', { body: queryBody(metric) });
    expect(answers.kairosdb.status).toBe(200);
    expect(answers.kairosdb.text).toBe(expectedAnswer(metric));
    expect(answers.kairograph.text).toBe(expectedAnswer(metric));
  });

  it("list each other's metric names", async () => {
    const names = `${P}names.`;
    const point = (metric: string) => [{ name: metric, tags: { host: 'a' }, datapoints: [[R, 1]] }];
    expect(
      (await pair.kairograph.call('POST', '/api/v1/datapoints', { body: point(`${names}by_kairograph`) })).status,
    ).toBe(204);
    expect(
      (await pair.kairosdb.call('POST', '/api/v1/datapoints', { body: point(`${names}by_kairosdb`) })).status,
    ).toBe(204);
    const path = `/api/v1/metricnames?prefix=${encodeURIComponent(names)}`;
    const expected = [`${names}by_kairograph`, `${names}by_kairosdb`];
    // KairosDB collects the names in a HashSet, so its order is the set's; Kairograph sorts (COMPATIBILITY.md).
    const sorted = (answer: RestResponse) => [...(answer.json as { results: string[] }).results].sort();
    await until(pair.kairosdb, 'GET', path, {}, (a) => sorted(a).join() === expected.join());
    const answers = await pair.both('GET', path);
    expect(sorted(answers.kairosdb)).toEqual(expected);
    expect(answers.kairograph.json).toEqual({ results: expected });
  });
});
