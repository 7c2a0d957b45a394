/**
 * KairosDB 1.3 with its tag index on (a KairosDB of this file's own, booted with tag_indexed_row_key_lookup_metrics) and
 * Kairograph with the same TAG_INDEXED_METRICS: KairosDB's tag_indexed_row_keys rows are the ones Kairograph writes for
 * the same series, hash included, and Kairograph reads KairosDB's, also where KairosDB itself answers nothing: a filter
 * on a tag that is not indexed, and series written before the index was turned on (src/kairos-rest/COMPATIBILITY.md
 * item 20, its first two cases, seen here on KairosDB 1.3.0-1 itself).
 */
import type cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.js';
import { parseTagIndexConfig } from '../../src/store/tag-index.js';
import { plainClient, storeOptions, testNode } from '../integration/cassandra-stores.js';
import { callRest, startRestGateway, type RestGateway } from '../rest/rest-client.js';
import { startKairosDB, type KairosDBServer } from '../support/kairosdb-server.js';
import { until, type RestServer } from './kairosdb-pair.js';

const METRIC = 'kg.tagged';
const INDEXED = `{"${METRIC}": ["host"]}`;
const KAIROSDB_KEYSPACE = 'kg_kairos_tagindex';
const KAIROGRAPH_KEYSPACE = 'kg_kairograph_tagindex';
const R = 1_435_190_400_000;
const config = parseTagIndexConfig(JSON.parse(INDEXED));

let cql: cassandra.Client;
let kairos: KairosDBServer | undefined;
let kairosdb: RestServer;
let onKairos: CassandraStore;
let own: CassandraStore;
let gw: RestGateway;

beforeAll(async () => {
  cql = await plainClient();
  // Fresh keyspaces: KairosDB caches the row keys it indexed, so only a new KairosDB over a new keyspace writes them all.
  for (const keyspace of [KAIROSDB_KEYSPACE, KAIROGRAPH_KEYSPACE])
    await cql.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
  // Kairograph first, before any data, so every period is complete for its index (KairosDB's never falls back).
  onKairos = await CassandraStore.open(storeOptions(KAIROSDB_KEYSPACE, { tagIndexedMetrics: config }));
  own = await CassandraStore.open(storeOptions(KAIROGRAPH_KEYSPACE, { tagIndexedMetrics: config }));
  gw = await startRestGateway(onKairos);
  kairos = await startKairosDB({
    cassandra: testNode().contactPoint,
    keyspace: KAIROSDB_KEYSPACE,
    tagIndexed: INDEXED,
    reuse: '',
  });
  kairosdb = {
    name: 'kairosdb',
    url: kairos.url,
    call: (method, path, options) => callRest(kairos!.url, method, path, options, true),
  };
  const written = await kairosdb.call('POST', '/api/v1/datapoints', { body: body() });
  expect(written.status).toBe(204);
  // KairosDB acknowledges before its queue writes; both series (and so both index rows) must be readable before any test.
  await until(kairosdb, 'POST', '/api/v1/datapoints/query', { body: query({ host: ['a', 'b'] }) }, (a) =>
    a.text.includes('"sample_size":2'),
  );
}, 180_000);

afterAll(async () => {
  await kairos?.stop();
  await gw?.close();
  await onKairos?.close();
  await own?.close();
  await cql?.shutdown();
});

const body = () =>
  JSON.stringify([
    { name: METRIC, tags: { host: 'a', dc: 'x' }, datapoints: [[R, 1.5]] },
    { name: METRIC, tags: { host: 'b', dc: 'y' }, datapoints: [[R + 1, 2.5]] },
  ]);
const query = (tags: Record<string, string[]>) => ({
  start_absolute: R - 10,
  end_absolute: R + 10,
  metrics: [{ name: METRIC, tags }],
});

async function indexRows(keyspace: string): Promise<unknown[]> {
  const rows = await cql.execute(
    `SELECT metric, table_name, row_time, single_tag_pair, data_type, tag_collection_hash, tags FROM ${keyspace}.tag_indexed_row_keys`,
  );
  return rows.rows
    .map((r) => [
      r.get('metric'),
      r.get('table_name'),
      (r.get('row_time') as Date).getTime(),
      r.get('single_tag_pair'),
      r.get('data_type'),
      r.get('tag_collection_hash'),
      Object.fromEntries(r.get('tags') as Map<string, string>),
    ])
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

describe("KairosDB 1.3's tag index beside Kairograph's", () => {
  it('holds the rows Kairograph writes for the same series: pair, murmur3 hash of the indexed tags, full tag map', async () => {
    await own.write({
      series: [
        { metric: METRIC, tags: { host: 'a', dc: 'x' }, type: 'double', ttlSeconds: 0, timestamps: [R], values: [1.5] },
        {
          metric: METRIC,
          tags: { host: 'b', dc: 'y' },
          type: 'double',
          ttlSeconds: 0,
          timestamps: [R + 1],
          values: [2.5],
        },
      ],
    });
    const theirs = await indexRows(KAIROSDB_KEYSPACE);
    expect(theirs).toEqual([
      [METRIC, 'data_points', R, 'host=a', 'kairos_double', -1147264974, { dc: 'x', host: 'a' }],
      [METRIC, 'data_points', R, 'host=b', 'kairos_double', expect.any(Number), { dc: 'y', host: 'b' }],
    ]);
    expect(await indexRows(KAIROGRAPH_KEYSPACE)).toEqual(theirs);
  });

  it('answers a pinned indexed tag as KairosDB does, from the rows KairosDB indexed', async () => {
    const before = onKairos.statements['tag_indexed_row_keys.select'] ?? 0;
    const expected =
      '{"queries":[{"sample_size":1,"results":[{"name":"kg.tagged","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["x"],"host":["a"]},' +
      `"values":[[${R},1.5]]}]}]}`;
    expect((await kairosdb.call('POST', '/api/v1/datapoints/query', { body: query({ host: ['a'] }) })).text).toBe(
      expected,
    );
    expect((await gw.call('POST', '/api/v1/datapoints/query', { body: query({ host: ['a'] }) })).text).toBe(expected);
    expect(onKairos.statements['tag_indexed_row_keys.select']).toBe(before + 1);
  });

  it('answers a tag that is not indexed, where KairosDB 1.3 finds nothing', async () => {
    // KairosDB reads the dc=y partition, which nobody writes (COMPATIBILITY.md item 20).
    const fromKairosdb = await kairosdb.call('POST', '/api/v1/datapoints/query', { body: query({ dc: ['y'] }) });
    expect(fromKairosdb.status).toBe(200);
    expect(JSON.parse(fromKairosdb.text).queries[0].sample_size).toBe(0);
    expect((await gw.call('POST', '/api/v1/datapoints/query', { body: query({ dc: ['y'] }) })).text).toBe(
      '{"queries":[{"sample_size":1,"results":[{"name":"kg.tagged","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["y"],"host":["b"]},' +
        `"values":[[${R + 1},2.5]]}]}]}`,
    );
  });
});

describe('a tag index turned on over data KairosDB wrote without one', () => {
  const LATE = 'kg.late';
  const KEYSPACE = 'kg_kairos_tagindex_late';
  const lateQuery = { start_absolute: R - 10, end_absolute: R + 10, metrics: [{ name: LATE, tags: { host: ['a'] } }] };
  let before: KairosDBServer | undefined;
  let after: KairosDBServer | undefined;
  let store: CassandraStore | undefined;
  let lateGw: RestGateway | undefined;

  afterAll(async () => {
    await before?.stop();
    await after?.stop();
    await lateGw?.close();
    await store?.close();
  });

  it('is found by Kairograph through row_keys, where KairosDB 1.3 answers nothing until a backfill', async () => {
    await cql.execute(`DROP KEYSPACE IF EXISTS ${KEYSPACE}`);
    before = await startKairosDB({ cassandra: testNode().contactPoint, keyspace: KEYSPACE, reuse: '' });
    const first: RestServer = {
      name: 'kairosdb',
      url: before.url,
      call: (method, path, options) => callRest(before!.url, method, path, options, true),
    };
    const body = JSON.stringify([{ name: LATE, tags: { host: 'a', dc: 'x' }, datapoints: [[R, 1.5]] }]);
    expect((await first.call('POST', '/api/v1/datapoints', { body })).status).toBe(204);
    await until(first, 'POST', '/api/v1/datapoints/query', { body: lateQuery }, (a) =>
      a.text.includes('"sample_size":1'),
    );
    await before.stop();
    before = undefined;

    after = await startKairosDB({
      cassandra: testNode().contactPoint,
      keyspace: KEYSPACE,
      tagIndexed: `{"${LATE}": ["host"]}`,
      reuse: '',
    });
    const second: RestServer = {
      name: 'kairosdb',
      url: after.url,
      call: (method, path, options) => callRest(after!.url, method, path, options, true),
    };
    store = await CassandraStore.open(
      storeOptions(KEYSPACE, { tagIndexedMetrics: parseTagIndexConfig({ [LATE]: ['host'] }) }),
    );
    lateGw = await startRestGateway(store);
    // KairosDB reads the host=a partition, which nothing wrote before the index was on (COMPATIBILITY.md item 20).
    const fromKairosdb = await second.call('POST', '/api/v1/datapoints/query', { body: lateQuery });
    expect(fromKairosdb.status).toBe(200);
    expect(JSON.parse(fromKairosdb.text).queries[0].sample_size).toBe(0);
    expect((await lateGw.call('POST', '/api/v1/datapoints/query', { body: lateQuery })).text).toBe(
      `{"queries":[{"sample_size":1,"results":[{"name":"${LATE}","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["x"],"host":["a"]},"values":[[${R},1.5]]}]}]}`,
    );
    expect(store.statements['tag_indexed_row_keys.select']).toBeUndefined();
  }, 180_000);
});
