/**
 * What the Cassandra store does beyond the conformance suite, on the real node: requests counted by statement (one
 * row_keys read per metric and row time for a whole request), pages fetched only on demand, k-way merges wider
 * than the request bound, batches under Cassandra's mutation limit, consistency levels, schema options, SECONDS.
 */
import type cassandra from 'cassandra-driver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { executeQuery, newQueryStats, unlimitedRequest } from '../../src/engine/execute.js';
import { IndexLoaders } from '../../src/sources/index-loaders.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import {
  CassandraStore,
  type CassandraStoreOptions,
  type StatementCounts,
} from '../../src/store/cassandra/cassandra-store.js';
import type { MetricQuery } from '../../src/model/query.js';
import { partitionsOf, scanAll } from '../support/store-reads.js';
import { KeyspacePool, plainClient, storeOptions, testNode } from './cassandra-stores.js';

const pool = new KeyspacePool('kg_store');
const open: CassandraStore[] = [];
let cql: cassandra.Client;

beforeAll(async () => {
  cql = await plainClient();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await pool.shutdown();
  await cql?.shutdown();
});

async function fresh(options: Partial<CassandraStoreOptions> = {}): Promise<CassandraStore> {
  const store = await pool.store(options);
  open.push(store);
  return store;
}

/** Requests made by `work`, by statement. */
async function counted(store: CassandraStore, work: () => Promise<unknown>): Promise<StatementCounts> {
  const before = store.statements;
  await work();
  const after = store.statements;
  return Object.fromEntries(
    Object.entries(after)
      .filter(([name, n]) => n !== (before[name as keyof StatementCounts] ?? 0))
      .map(([name, n]) => [name, n! - (before[name as keyof StatementCounts] ?? 0)]),
  );
}

const GENEROUS = {
  maxSeries: 100_000,
  maxPointsRead: 10_000_000,
  maxPointsReturned: 10_000_000,
  onExceed: 'error' as const,
};

function metricQuery(metric: string, startMs: number, endMs: number, hosts?: string[]): MetricQuery {
  const tags = hosts === undefined ? [] : [{ tag: 'host', in: hosts }];
  return {
    metric,
    range: { startMs, endMs },
    tags,
    groupBy: [],
    aggregators: [],
    timeZone: 'UTC',
    order: 'asc',
    excludeTags: false,
  };
}

describe('requests by statement', () => {
  it('counts each write statement and batch', async () => {
    const store = await fresh({ rowWidth: 1000 });
    const made = await counted(store, () =>
      store.write({
        series: [
          { metric: 'm', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [1, 2, 1001], values: [1, 2, 3] },
          { metric: 'm', tags: { h: 'b' }, type: 'double', ttlSeconds: 0, timestamps: [5], values: [0.5] },
        ],
      }),
    );
    // Three partitions (a@0, a@1000, b@0) with the same replica, in one data batch; the index in one batch per index
    // partition: row_keys of m@0 (a and b) and m@1000, row_key_time_index of m (both row times), string_index.
    expect(made).toEqual({
      'row_keys.insert': 2,
      'row_key_time_index.insert': 1,
      'string_index.insert': 1,
      'data_points.insert': 1,
    });
  });

  it('reads row_keys once per metric and row time for a request, its row times together, however many queries ask', async () => {
    const store = await fresh({ rowWidth: 1000 });
    const timestamps = [10, 1010, 2010];
    await store.write({
      series: ['a', 'b', 'c'].map((h) => ({
        metric: 'cpu',
        tags: { host: h },
        type: 'long' as const,
        ttlSeconds: 0,
        timestamps,
        values: timestamps,
      })),
    });
    const loaders = new IndexLoaders();
    const ctx = {
      source: new KairosdbSource('kairosdb', store),
      index: loaders,
      budgets: GENEROUS,
      request: unlimitedRequest(),
      stats: newQueryStats(),
      nowMs: Date.now(),
    };
    const made = await counted(store, () =>
      Promise.all([
        executeQuery(metricQuery('cpu', 0, 2999, ['a']), ctx),
        executeQuery(metricQuery('cpu', 0, 2999, ['b', 'c']), ctx),
        executeQuery(metricQuery('cpu', 0, 2999), ctx),
      ]),
    );
    expect(made).toEqual({
      'row_key_time_index.select': 1,
      'row_key_index.select': 1,
      // Its three row times in one statement, for the three queries together.
      'row_keys.select_in': 1,
      // a, b+c and all three: 1 + 2 + 3 series, each in three rows.
      'data_points.select': 18,
    });
  });
});

describe('scans', () => {
  it('fetches one page ahead of the consumer, never more', async () => {
    const store = await fresh();
    const timestamps = Array.from({ length: 10 }, (_, i) => 100 + i);
    await store.write({
      series: [{ metric: 'p', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps, values: timestamps }],
    });
    const [key] = await partitionsOf(store, 'p', 0, 1000);
    const pages = () => store.statements['data_points.select'] ?? 0;
    const start = pages();
    const scan = store.scan(key!, 0, 1000, { pageSize: 1 })[Symbol.asyncIterator]();
    // A one-point slice is complete only once the next point arrived, so the first slice costs two pages, and the
    // arrival of the second asks for the third.
    expect((await scan.next()).value?.timestamps[0]).toBe(100);
    expect(pages() - start).toBe(3);
    expect((await scan.next()).value?.timestamps[0]).toBe(101);
    expect(pages() - start).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pages() - start).toBe(4);
    await scan.return(undefined);
    // The page asked for ahead runs to its end (the driver cannot cancel it), and nothing more is asked.
    const deadline = Date.now() + 5000;
    while (store.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(store.inFlight).toBe(0);
    expect(pages() - start).toBe(4);
  });

  it('reads the rest of a split scan after its first page as consecutive column ranges at once, in order', async () => {
    const store = await fresh();
    const timestamps = Array.from({ length: 40 }, (_, i) => 1000 + i * 25);
    await store.write({
      series: [{ metric: 'p', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps, values: timestamps }],
    });
    const [key] = await partitionsOf(store, 'p', 0, 10_000);
    const pages = () => store.statements['data_points.select'] ?? 0;
    const start = pages();
    const scan = store.scan(key!, 1000, 1975, { pageSize: 4, split: 4 })[Symbol.asyncIterator]();
    const first = await scan.next();
    expect(first.value?.timestamps[0]).toBe(1000);
    // The first page, then the 36 points after it as 4 parts started at once, each going as far as a scan goes ahead
    // (its first slice needs its second page, whose arrival asks for the third): 9 points a part, 3 pages each.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pages() - start).toBe(1 + 4 * 3);
    const times = [...first.value!.timestamps];
    for (let next = await scan.next(); next.done !== true; next = await scan.next())
      times.push(...next.value.timestamps);
    expect(times).toEqual(timestamps);
    for (const order of ['asc', 'desc'] as const) {
      for (const split of [2, 3, 7, 5000]) {
        for (const pageSize of [1, 3, 5000]) {
          const got = (await scanAll(store, key!, 1010, 1960, { order, split, pageSize })).map((p) => p.t);
          const want = timestamps.filter((t) => t >= 1010 && t <= 1960);
          expect(got, JSON.stringify({ order, split, pageSize })).toEqual(order === 'asc' ? want : want.reverse());
        }
      }
    }
  });

  it('finishes a merge that opens more partition scans at once than the store has request permits', async () => {
    const store = await fresh({ concurrency: 2 });
    const series = Array.from({ length: 40 }, (_, s) => ({
      metric: 'wide',
      tags: { host: `h${String(s).padStart(2, '0')}` },
      type: 'long' as const,
      ttlSeconds: 0,
      timestamps: [1000 + s, 2000 + s, 3000 + s],
      values: [s, s, s],
    }));
    await store.write({ series });
    // The engine opens 16 scans together and waits for the first page of each before it consumes any; a permit
    // held across a suspended scan would leave 14 of them waiting forever.
    const output = await executeQuery(metricQuery('wide', 0, 10_000), {
      source: new KairosdbSource('kairosdb', store),
      index: new IndexLoaders(),
      budgets: GENEROUS,
      request: unlimitedRequest(),
      stats: newQueryStats(),
      nowMs: Date.now(),
      concurrency: 16,
      pageSize: 1,
    });
    expect(output.sampleSize).toBe(120);
    const scans = series.map((s) =>
      store
        .scan({ metric: 'wide', rowTime: 0, dataType: 'kairos_long', tags: s.tags }, 0, 10_000, { pageSize: 1 })
        [Symbol.asyncIterator](),
    );
    const firsts = await Promise.all(scans.map((scan) => scan.next()));
    expect(firsts.map((r) => r.value?.timestamps[0])).toEqual(series.map((s) => s.timestamps[0]));
    await Promise.all(scans.map((scan) => scan.return(undefined)));
  });
});

describe('writes', () => {
  it("splits a partition's cells into batches of at most 1000 cells and 256 KiB", async () => {
    const store = await fresh();
    const many = Array.from({ length: 2500 }, (_, i) => i);
    expect(
      await counted(store, () =>
        store.write({
          series: [{ metric: 'n', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps: many, values: many }],
        }),
      ),
    ).toMatchObject({
      'data_points.insert': 3,
    });
    const big = 'x'.repeat(60_000);
    const ten = Array.from({ length: 10 }, (_, i) => i);
    expect(
      await counted(store, () =>
        store.write({
          series: [
            {
              metric: 's',
              tags: { h: 'a' },
              type: 'string',
              ttlSeconds: 0,
              timestamps: ten,
              values: ten.map(() => big),
            },
          ],
        }),
      ),
    ).toMatchObject({
      'data_points.insert': 3,
    });
    const [nKey] = await partitionsOf(store, 'n', 0, 10_000);
    expect((await scanAll(store, nKey!, 0, 10_000)).map((p) => p.t)).toEqual(many);
    const [sKey] = await partitionsOf(store, 's', 0, 10_000);
    const strings = await scanAll(store, sKey!, 0, 10_000);
    expect(strings.map((p) => [p.t, (p.v as string).length])).toEqual(ten.map((t) => [t, 60_000]));
  });
});

describe('configuration', () => {
  it('reads and writes at the configured consistency: TWO or THREE on a one-node cluster is STORE_UNAVAILABLE', async () => {
    const batch = {
      series: [{ metric: 'c', tags: { h: 'a' }, type: 'long' as const, ttlSeconds: 0, timestamps: [1], values: [1] }],
    };
    const reads = await fresh({ readConsistency: 'TWO' });
    await reads.write(batch);
    await expect(reads.rowTimes('c', 0, 10)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: `the cassandra store is unavailable: Not enough replicas available for query at consistency TWO (2 required but only 1 alive) (said ${testNode().contactPoint})`,
    });
    // The spec is read at the write consistency too (it must see what a writer wrote), so this store never connects.
    const writes = new CassandraStore({ ...storeOptions('kg_store_0'), writeConsistency: 'THREE' });
    open.push(writes);
    await expect(writes.write(batch)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: `the cassandra store is unavailable: Not enough replicas available for query at consistency THREE (3 required but only 1 alive) (said ${testNode().contactPoint})`,
    });
  });

  it('creates a missing keyspace and tables with the configured replication and options, and never alters existing ones', async () => {
    const keyspace = 'kg_store_options';
    await cql.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    const first = await CassandraStore.open({
      ...storeOptions(keyspace),
      replication: "{'class': 'NetworkTopologyStrategy', 'datacenter1': 1}",
      tableOptions: {
        data_points: "WITH comment = 'points' AND gc_grace_seconds = 3600",
        row_keys: "WITH comment = 'keys'",
      },
    });
    await first.close();
    const replication = await cql.execute(
      'SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?',
      [keyspace],
      { prepare: true },
    );
    expect(replication.rows[0]!.get('replication')).toEqual(
      new Map([
        ['class', 'org.apache.cassandra.locator.NetworkTopologyStrategy'],
        ['datacenter1', '1'],
      ]),
    );
    const tables = async () =>
      Object.fromEntries(
        (
          await cql.execute(
            'SELECT table_name, comment, gc_grace_seconds FROM system_schema.tables WHERE keyspace_name = ?',
            [keyspace],
            { prepare: true },
          )
        ).rows.map((r) => [r.get('table_name'), [r.get('comment'), r.get('gc_grace_seconds')]]),
      );
    const created = {
      data_points: ['points', 3600],
      row_key_index: ['', 864000],
      string_index: ['', 864000],
      row_keys: ['keys', 864000],
      tag_indexed_row_keys: ['', 864000],
      row_key_time_index: ['', 864000],
      spec: ['', 864000],
      service_index: ['', 864000],
    };
    expect(await tables()).toEqual(created);
    const second = await CassandraStore.open({
      ...storeOptions(keyspace),
      tableOptions: { data_points: "WITH comment = 'changed'" },
    });
    await second.close();
    expect(await tables()).toEqual(created);
  });

  it("keeps KairosDB's SECONDS unit: whole-second columns in rows of the spec's raw width", async () => {
    const store = await fresh({ rowTimeUnit: 'SECONDS' });
    expect(await store.spec()).toEqual({ unit: 'SECONDS', width: 1_814_400 });
    await store.write({
      series: [
        { metric: 'sec', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [1_500, 3_999], values: [1, 2] },
      ],
    });
    const keys = await partitionsOf(store, 'sec', 0, 10_000);
    expect(keys.map((k) => k.rowTime)).toEqual([0]);
    expect((await scanAll(store, keys[0]!, 0, 10_000)).map((p) => [p.t, p.v])).toEqual([
      [1_000, 1n],
      [3_000, 2n],
    ]);
  });
});
