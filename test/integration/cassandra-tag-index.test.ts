/** The tag index conformance suite against the real Cassandra of the integration run. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type cassandra from 'cassandra-driver';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.js';
import type { Store } from '../../src/store/store.js';
import { parseTagIndexConfig, type TagIndexConfig } from '../../src/store/tag-index.js';
import { describeTagIndexConformance } from '../tag-index-conformance.js';
import { emptyKeyspace, plainClient, storeOptions } from './cassandra-stores.js';

let cql: cassandra.Client;
beforeAll(async () => {
  cql = await plainClient();
});
afterAll(() => cql?.shutdown());

const keyspaces = new WeakMap<Store, string>();
let made = 0;

async function openOn(keyspace: string, tagIndexedMetrics: TagIndexConfig | undefined): Promise<Store> {
  const store = await CassandraStore.open(
    storeOptions(keyspace, { rowWidth: 1000, ...(tagIndexedMetrics ? { tagIndexedMetrics } : {}) }),
  );
  keyspaces.set(store, keyspace);
  return store;
}

describeTagIndexConformance('cassandra', {
  async fresh(config) {
    // A few keyspaces in turn: a property run's store is closed before the next one opens.
    const keyspace = `kg_tagindex_${made++ % 3}`;
    await emptyKeyspace(cql, keyspace);
    return openOn(keyspace, config);
  },
  async reopen(store, config) {
    await store.close();
    return openOn(keyspaces.get(store)!, config);
  },
  runs: 25,
});

describe('cassandra tag index coverage', () => {
  const since = async (keyspace: string) => {
    const rows = await cql.execute(
      `SELECT key, value FROM ${keyspace}.service_index WHERE service = ? AND service_key = ?`,
      ['kairograph', 'tag_index_since'],
      { prepare: true },
    );
    return Object.fromEntries(rows.rows.map((r) => [String(r.get('key')), Number(r.get('value'))]));
  };
  const config = (json: unknown) => parseTagIndexConfig(json);

  it("keeps a line's start while configured, drops it when turned off, and starts it again after the data when turned on", async () => {
    const keyspace = 'kg_tagindex_coverage';
    await emptyKeyspace(cql, keyspace);
    let store = await openOn(keyspace, config({ m: ['host'], n: [] }));
    try {
      // No data yet: every period is complete.
      expect(await since(keyspace)).toEqual({
        '["m","host"]': Number.MIN_SAFE_INTEGER,
        '["n"]': Number.MIN_SAFE_INTEGER,
      });
      await store.write({
        series: [{ metric: 'm', tags: { host: 'a' }, type: 'double', ttlSeconds: 0, timestamps: [500], values: [1] }],
      });
      await store.close();
      store = await openOn(keyspace, config({ m: ['host'] }));
      expect(await since(keyspace)).toEqual({ '["m","host"]': Number.MIN_SAFE_INTEGER });
      expect(await store.indexedTags!('m', 0)).toEqual(new Set(['host']));
      await store.close();
      // Off: written meanwhile, m's series would have no index rows.
      store = await openOn(keyspace, undefined);
      expect(await since(keyspace)).toEqual({});
      await store.close();
      const before = Date.now();
      store = await openOn(keyspace, config({ m: ['host'] }));
      const from = (await since(keyspace))['["m","host"]']!;
      // The period after the current one (1000 ms rows here).
      expect(from).toBeGreaterThanOrEqual(before - (before % 1000) + 1000);
      expect(from).toBeLessThanOrEqual(Date.now() - (Date.now() % 1000) + 1000);
      expect(await store.indexedTags!('m', 0)).toEqual(new Set());
      expect(await store.indexedTags!('m', from)).toEqual(new Set(['host']));
    } finally {
      await store.close();
    }
  });
});
