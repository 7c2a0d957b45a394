/**
 * The written index on the real node: a second write of the same series sends none of its index rows, and the index
 * still finds every series and every point; a delete through the store, and a table dropped behind the store's back
 * and re-created by its repair, make the next write send the rows again.
 */
import type cassandra from 'cassandra-driver';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { CassandraStore, type StatementCounts } from '../../src/store/cassandra/cassandra-store.js';
import type { WriteBatch } from '../../src/model/write-batch.js';
import { partitionsOf, scanAll } from '../support/store-reads.js';
import { emptyKeyspace, plainClient, storeOptions, waitFor } from './cassandra-stores.js';

const KEYSPACE = 'kg_written';
const open: CassandraStore[] = [];
let cql: cassandra.Client;
const T0 = 1_714_557_600_000;
const ROW_WIDTH = 3_600_000;
const ROW = T0 - (T0 % ROW_WIDTH);

beforeAll(async () => {
  cql = await plainClient();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await cql?.shutdown();
});

async function fresh(): Promise<CassandraStore> {
  await emptyKeyspace(cql, KEYSPACE);
  // Only requests find a dropped table here, so that the repair starts when the test asks.
  const store = await CassandraStore.open(storeOptions(KEYSPACE, { rowWidth: ROW_WIDTH, schemaCheckMs: 0 }));
  open.push(store);
  return store;
}

/** One point per host at `t`, its value `t` plus the host's position. */
function points(t: number, ...hosts: string[]): WriteBatch {
  return {
    series: hosts.map((host, i) => ({
      metric: 'up',
      tags: { host },
      type: 'long' as const,
      ttlSeconds: 0,
      timestamps: [t],
      values: [t + i],
    })),
  };
}

/** Requests a write sent, by statement. */
async function sentBy(store: CassandraStore, batch: WriteBatch): Promise<StatementCounts> {
  const before = store.statements;
  await store.write(batch);
  const after = store.statements;
  return Object.fromEntries(
    Object.entries(after)
      .filter(([name, n]) => n !== (before[name as keyof StatementCounts] ?? 0))
      .map(([name, n]) => [name, n! - (before[name as keyof StatementCounts] ?? 0)]),
  );
}

/** Every series the index finds in the first hour, with every point of it, by host. */
async function readBack(store: CassandraStore): Promise<Record<string, [number, bigint][]>> {
  const out: Record<string, [number, bigint][]> = {};
  for (const key of await partitionsOf(store, 'up', ROW, ROW + ROW_WIDTH - 1)) {
    const scanned = await scanAll(store, key, ROW, ROW + ROW_WIDTH - 1);
    out[key.tags.host!] = scanned.map((p) => [p.t, p.v as bigint]);
  }
  return out;
}

it('skips the index rows of series written before, and the index still finds every point', async () => {
  const store = await fresh();
  expect(await sentBy(store, points(T0, 'a', 'b'))).toEqual({
    'row_keys.insert': 1,
    'row_key_time_index.insert': 1,
    'string_index.insert': 1,
    'data_points.insert': 1,
  });
  expect(await sentBy(store, points(T0 + 1000, 'a', 'b'))).toEqual({ 'data_points.insert': 1 });
  // A new series of the same metric and row time: its row_keys row alone.
  expect(await sentBy(store, points(T0 + 2000, 'c', 'a'))).toEqual({
    'row_keys.insert': 1,
    'data_points.insert': 1,
  });
  expect(await readBack(store)).toEqual({
    a: [
      [T0, BigInt(T0)],
      [T0 + 1000, BigInt(T0 + 1000)],
      [T0 + 2000, BigInt(T0 + 2001)],
    ],
    b: [
      [T0, BigInt(T0 + 1)],
      [T0 + 1000, BigInt(T0 + 1001)],
    ],
    c: [[T0 + 2000, BigInt(T0 + 2000)]],
  });
});

it('sends the index rows of a series deleted through the store again with its next write', async () => {
  const store = await fresh();
  await store.write(points(T0, 'a', 'b'));
  await store.deleteRange(
    { metric: 'up', rowTime: ROW, dataType: 'kairos_long', tags: { host: 'a' } },
    ROW,
    ROW + ROW_WIDTH,
  );
  expect(await readBack(store)).toEqual({ b: [[T0, BigInt(T0 + 1)]] });
  // a's row_keys row and the row time's entry, which the delete forgot (b keeps the row time); the name stays.
  expect(await sentBy(store, points(T0 + 1000, 'a', 'b'))).toEqual({
    'row_keys.insert': 1,
    'row_key_time_index.insert': 1,
    'data_points.insert': 1,
  });
  expect(await readBack(store)).toEqual({
    a: [[T0 + 1000, BigInt(T0 + 1000)]],
    b: [
      [T0, BigInt(T0 + 1)],
      [T0 + 1000, BigInt(T0 + 1001)],
    ],
  });
  await store.deleteMetricName('up');
  expect(await sentBy(store, points(T0 + 2000, 'a'))).toEqual({ 'string_index.insert': 1, 'data_points.insert': 1 });
  expect(await store.metricNames()).toEqual(['up']);
});

it('sends every index row again once the store re-created a table dropped behind its back', async () => {
  const store = await fresh();
  await store.write(points(T0, 'a'));
  await cql.execute(`DROP TABLE ${KEYSPACE}.row_keys`);
  // The read that meets the missing table starts the repair; reads fail until it is done.
  await expect(store.rowKeys('up', ROW)).rejects.toThrow(/row_keys/);
  await waitFor(
    'the store serves row_keys again',
    () =>
      store.rowKeys('up', ROW).then(
        () => true,
        () => false,
      ),
    60_000,
  );
  expect(await readBack(store)).toEqual({});
  expect(await sentBy(store, points(T0 + 1000, 'a'))).toEqual({
    'row_keys.insert': 1,
    'row_key_time_index.insert': 1,
    'string_index.insert': 1,
    'data_points.insert': 1,
  });
  expect(await readBack(store)).toEqual({
    a: [
      [T0, BigInt(T0)],
      [T0 + 1000, BigInt(T0 + 1000)],
    ],
  });
});
